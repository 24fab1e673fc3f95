package postgres

import (
	"fmt"
	"strings"

	"github.com/dbarena/dbarena/driver"
)

// Address implements driver.Addresser: postgres.url at the first
// server, and, for several, postgres.hosts, which spreads the workers
// over the nodes (a URL with several hosts would only fail over).
func Address(r driver.Reach) []driver.Prop {
	if len(r.Addrs) == 0 {
		return nil
	}
	out := []driver.Prop{{Key: Prefix + ".url", Value: fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable",
		driver.URLUser(r.User, r.Password), r.Addrs[0], r.Database)}}
	if len(r.Addrs) > 1 {
		out = append(out, driver.Prop{Key: Prefix + ".hosts", Value: strings.Join(r.Addrs, ",")})
	}
	return out
}
