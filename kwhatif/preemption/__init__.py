"""DefaultPreemption's machinery: eligibility, victims per node with PDB accounting, and the
choice among candidate nodes (preemption.go:Evaluator.Preempt)."""
