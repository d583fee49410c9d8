"""The Flask core every game shares: app factory, configuration, database and store, live updates, moves,
tokens, languages, errors, security, rate limits, compression, assets, QR codes and network."""
