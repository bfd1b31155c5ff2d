"""NodeResourcesFit (filter + scoring strategies) and NodeResourcesBalancedAllocation."""
