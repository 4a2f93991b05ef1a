package mockserver

// What the server records grows with every command for as long as it runs: the webhook
// events and delivery attempts (Events, Deliveries), the stats ledger of offers and task
// milestones (stats.*, tasks.history's counts) and each worker's task outcomes in the time
// record. WithRetention bounds each of them: once one holds 2 × the retention it drops its
// oldest entries down to the retention, into a fresh array so the memory of the dropped
// ones is released. So each holds between the newest N and 2N entries; Events and
// Deliveries return exactly the newest N. Reads that reach further back (stats over a long
// window, a worker's outcomes of last month) then count only what is kept.

// DefaultRetention is how many entries of each growing record the server keeps by default.
const DefaultRetention = 100_000

// keepNewest trims s to its newest n entries once it holds 2n (n <= 0: no bound).
func keepNewest[T any](s []T, n int) []T {
	if n <= 0 || len(s) < 2*n {
		return s
	}
	return append(make([]T, 0, 2*n), s[len(s)-n:]...)
}

// newestOf returns a copy of the newest n entries of s (all of them when n <= 0).
func newestOf[T any](s []T, n int) []T {
	if n > 0 && len(s) > n {
		s = s[len(s)-n:]
	}
	return append([]T(nil), s...)
}
