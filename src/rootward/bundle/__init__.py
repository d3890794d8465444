"""The incident bundle format (spec `rootward-bundle/v1`): load, validate, write, cite.

One package owns the format so that the loader, the live snapshot that writes
bundles, the engine's verifier and the evaluator all read the same rules. It
imports only `domain/`: the bundle-backed source adapters live in
`sources/bundle.py`, next to the live connectors they stand in for.
"""
