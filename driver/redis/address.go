package redis

import "github.com/dbarena/dbarena/driver"

// Address implements driver.Addresser: redis.addr at the first server,
// and redis.password when the deployment set one.
func Address(r driver.Reach) []driver.Prop {
	if len(r.Addrs) == 0 {
		return nil
	}
	out := []driver.Prop{{Key: Prefix + ".addr", Value: r.Addrs[0]}}
	if r.Password != "" {
		out = append(out, driver.Prop{Key: Prefix + ".password", Value: r.Password})
	}
	return out
}
