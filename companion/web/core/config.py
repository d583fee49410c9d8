"""Settings a command needs without building the site: the instance folder, the COMPANION_* environment
variables (each parsed as its own type) and the secret key, made on first use.
"""

from __future__ import annotations

import os
import secrets
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from limits import parse_many

PACKAGE = Path(__file__).resolve().parents[2]  # companion/
APP_NAME = "cryptid-companion"
SECRET_KEY_FILE = "secret_key"
MIN_SECRET_KEY_LENGTH = 32
# A game's forms post a CSRF token and a few small fields; anything near this size is not a browser of ours.
MAX_REQUEST_BODY = 16 * 1024


class ConfigurationError(RuntimeError):
    """A setting the site cannot run with; the message says which one and how to put it right."""


def site_folder(name: str) -> Path:
    """templates/ or static/: inside the installed package (a wheel ships them there), else beside it (checkout)."""
    inside = PACKAGE / name
    return inside if inside.is_dir() else PACKAGE.parent / name


def default_instance_folder() -> Path:
    """This user's data folder for the site, as each platform names it (standard library only)."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local"
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        configured = os.environ.get("XDG_DATA_HOME", "")
        base = configured if os.path.isabs(configured) else Path.home() / ".local" / "share"
    return Path(base) / APP_NAME


def instance_folder() -> Path:
    """The folder for the secret key and the SQLite database: COMPANION_INSTANCE_PATH, else the per-user one."""
    configured = os.environ.get("COMPANION_INSTANCE_PATH")
    return Path(configured).expanduser().absolute() if configured else default_instance_folder()


def _public_url(name: str, value: str) -> str | None:
    value = value.strip()
    if value and (urlsplit(value).scheme not in ("http", "https") or not urlsplit(value).netloc):
        raise ConfigurationError(f"{name} must be a full address such as https://cryptid.example.org, not {value!r}.")
    return value or None


def _days(name: str, value: str) -> int:
    try:
        days = int(value)
    except ValueError:
        raise ConfigurationError(f"{name} must be a whole number of days, such as 30, not {value!r}.") from None
    if days < 1:
        raise ConfigurationError(f"{name} must be at least 1 day, not {value!r}.")
    return days


def _proxies(name: str, value: str) -> int:
    if not (value.isascii() and value.isdigit()):
        raise ConfigurationError(f"{name} must be the number of reverse proxies in front (0, 1, 2...), not {value!r}.")
    return int(value)


def _rate_limits(name: str, value: str) -> str:
    try:
        parse_many(value)
    except ValueError:
        raise ConfigurationError(
            f"{name} must be rate limits such as 600 per minute, or 30 per minute;300 per hour, not {value!r}."
        ) from None
    return value


def _count(name: str, value: str) -> int:
    if not (value.isascii() and value.isdigit() and int(value) >= 1):
        raise ConfigurationError(f"{name} must be a whole number, at least 1, not {value!r}.")
    return int(value)


def _pause(name: str, value: str) -> tuple[float, float]:
    """Seconds a computer player waits before it moves: "1.5-3" (at random between the two) or "2"."""
    low, _, high = value.strip().partition("-")
    try:
        pause = (float(low), float(high or low))
    except ValueError:
        pause = (-1.0, -1.0)
    if not all(0 <= seconds <= 60 for seconds in pause) or pause[0] > pause[1]:
        raise ConfigurationError(f"{name} must be seconds such as 1.5-3 or 2 (at most 60), not {value!r}.")
    return pause


def _storage_uri(name: str, value: str) -> str:
    if "://" not in value:
        raise ConfigurationError(
            f"{name} must be a storage address such as redis://localhost:6379 or companion-database://, not {value!r}."
        )
    return value.strip()


# Each variable is parsed as its own type: Flask's from_prefixed_env would read a numeric key as a number.
ENVIRONMENT_SETTINGS = {
    "PUBLIC_URL": _public_url,
    "PURGE_AFTER_DAYS": _days,
    "TRUST_PROXY": _proxies,
    "RATE_LIMIT_NEW_GAMES": _rate_limits,
    "RATE_LIMIT_ACTIONS": _rate_limits,
    "REQUESTS_PER_ADDRESS": _count,
    "BODIES_PER_ADDRESS": _count,
    "WORKING_REQUESTS": _count,
    "RATE_LIMIT_STORAGE": _storage_uri,
    "COMPUTER_PAUSE": _pause,
}


def environment_settings() -> dict:
    """The settings given as COMPANION_<NAME> environment variables, parsed; raises ConfigurationError."""
    settings = {}
    for name, parse in ENVIRONMENT_SETTINGS.items():
        value = os.environ.get(f"COMPANION_{name}")
        if value is not None:
            settings[name] = parse(f"COMPANION_{name}", value)
    return settings


def secret_key(instance_path: str | os.PathLike | None = None) -> str:
    """The key the site signs seat links and forms with: COMPANION_SECRET_KEY (a plain string), else the key
    file in the instance folder, made on first use. Raises ConfigurationError for an empty or short key."""
    configured = os.environ.get("COMPANION_SECRET_KEY")
    if configured is not None:
        return _long_enough(configured, "COMPANION_SECRET_KEY", "set a longer one or unset it")
    folder = Path(instance_path) if instance_path is not None else instance_folder()
    path = folder / SECRET_KEY_FILE
    advice = "delete the file to make a new key (printed QR codes stop working) or set COMPANION_SECRET_KEY"
    return _long_enough(_read_or_create_key(path), str(path), advice)


def _long_enough(key: str, source: str, advice: str) -> str:
    if len(key) < MIN_SECRET_KEY_LENGTH:
        raise ConfigurationError(
            f"The secret key from {source} has {len(key)} characters; "
            f"it needs at least {MIN_SECRET_KEY_LENGTH}: {advice}."
        )
    return key


def _read_or_create_key(path: Path) -> str:
    """The key file's content, creating it once: many processes starting together all end with the same key.

    The new key is written to a temporary file first and then hard-linked to its name, which fails if the
    name exists, so the file is never seen empty and the first process to link wins; the others read its key.
    """
    try:
        return path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        pass
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, draft = tempfile.mkstemp(dir=path.parent, prefix=".secret_key-")  # readable by this user only
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                handle.write(secrets.token_hex(32))
                handle.flush()
                os.fsync(handle.fileno())
            try:
                os.link(draft, path)
            except FileExistsError:
                pass  # another process linked its key first: everyone uses that one
        finally:
            os.unlink(draft)
    except OSError as exc:
        raise ConfigurationError(
            f"Cannot create {path} ({exc.strerror}): set COMPANION_INSTANCE_PATH to a folder on a local disk "
            "that you can write to, or set COMPANION_SECRET_KEY."
        ) from None
    return path.read_text(encoding="utf-8").strip()
