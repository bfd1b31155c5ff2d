"""A read-only snapshot of a live cluster, taken through the user's own `kubectl` (their contexts,
auth plugins and proxies just work): `kubectl.py` is the one place kwhatif starts a process,
`redact.py` keeps only what scheduling reads, `capture.py` lists the kinds and writes the file."""
