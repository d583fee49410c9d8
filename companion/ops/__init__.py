"""Operator tools: the command line (python -m companion), the production server, benchmarks and load tests."""
