"""Writers, one file per output format (table, json, yaml, junit, markdown, github), registered in
`writers.py`. The core never prints; these turn structured results into text."""
