"""The ground floor: typed Kubernetes objects, quantities, selectors and matching helpers.

Nothing here knows about files or about scheduling decisions.
"""
