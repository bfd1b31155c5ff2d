"""Writers: table, json, yaml. The core never prints; these turn structured results into text."""
