"""Cryptid companion: game codes, setups and refereed play for the board game Cryptid, and Decrypto on the same
machinery.

The pure engines are companion.cryptid and companion.decrypto (standard library only); the web site is built by
companion.web.core.app.create_app; companion.ops holds the command line and the operator tools.
"""

__version__ = "0.1.0"
