"""The web site: core/ is the Flask site that knows no game; every other package here is one game's web part,
found by the app factory (core.app.create_app)."""
