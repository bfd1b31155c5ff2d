"""The cluster model for scheduling: node infos with their aggregates, and the indexes plugins need."""
