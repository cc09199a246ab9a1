package httpapi_test

import "testing"

// BenchmarkLoginWrongPassword is one login with a wrong password, on each
// database, with the login limit off and on (a limit too high to refuse:
// every attempt counted, none refused). The difference is what counting
// the attempts costs a login (proto-docs/auth-decisions.md, "Password
// attempts counted across replicas"):
//
//	go test -run '^$' -bench LoginWrongPassword ./services/fuel/internal/httpapi/
func BenchmarkLoginWrongPassword(b *testing.B) {
	for _, d := range dialects {
		for _, limit := range []struct {
			name      string
			perMinute int
		}{{"limit-off", 0}, {"limit-on", 1 << 30}} {
			b.Run(string(d)+"/"+limit.name, func(b *testing.B) {
				s := authServer(b, d, limit.perMinute)
				for b.Loop() {
					if res := s.do("POST", "/api/auth/login", `{"username":"root","password":"wrong-password"}`); res.status != 401 {
						b.Fatalf("%d %s", res.status, res.body)
					}
				}
			})
		}
	}
}
