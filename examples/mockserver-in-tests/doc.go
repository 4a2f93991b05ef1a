// Package mockservertests shows how a service's own tests use the mock server instead of the
// network. It holds no code of its own: read its _test.go files, which run with go test.
//
// Each test starts a private server with mockserver.Start (closed on t.Cleanup), points a
// taskrouting.Client at srv.URL() with srv.APIKey(), and asserts on what the server saw
// (srv.Events, srv.Requests) instead of sleeping:
//
//   - expiry_test.go moves a mockserver.ManualClock past an offer's deadline and sees the
//     task offered to the next worker;
//   - fault_test.go makes the server answer 503 once and shows the client's retry create
//     exactly one task, with the same Idempotency-Key on both attempts;
//   - webhook_test.go receives the signed deliveries with webhook.Handler on an httptest
//     server and waits for them with srv.WaitForDeliveries.
package mockservertests
