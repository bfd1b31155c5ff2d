"""`kwhatif sweep`: many what-if scenarios of one file, run anywhere with the same rows.

`spec` reads and checks the sweep file and every input it names (the plan and the snapshots'
prepared bytes workers receive), `changes` makes each scenario's changes to its snapshot,
`scenario` runs one scenario into its row, `executors` runs them here, on local worker
processes or on Dask, and `report` writes the rows."""
