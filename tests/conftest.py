import pytest

from companion.app import create_app


@pytest.fixture(autouse=True)
def instance_folder(tmp_path, monkeypatch):
    """Every app a test builds keeps its secret key and SQLite database in the test's own folder."""
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    return tmp_path


@pytest.fixture
def app(instance_folder):
    return create_app({"TESTING": True, "SECRET_KEY": "test-secret", "WTF_CSRF_ENABLED": False})


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()
