package zkview

import "sync"

// eachBounded calls f(i) for every i below n, at most limit at once (at
// least one), and returns when every call has: the fan-out of reads that
// keep several requests in flight on one session.
func eachBounded(n, limit int, f func(i int)) {
	sem := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			f(i)
		}()
	}
	wg.Wait()
}
