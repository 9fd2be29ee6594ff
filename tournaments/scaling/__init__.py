"""The scaling sweep: every way of spending k workers against the full engine at N nodes, at
k = 2 … 16 (issue 43): ``config`` reads the sweep file and makes each point a match,
``run`` plays the points, ``report`` tabulates and plots them."""
