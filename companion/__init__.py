"""Cryptid companion: game codes, setups and a web site for the board game Cryptid.

The pure game engine lives in companion.cryptid (no Flask); the web app is built by companion.app.create_app.
"""

__version__ = "0.1.0"
