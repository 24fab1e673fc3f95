package mysql

import (
	"fmt"

	"github.com/dbarena/dbarena/driver"
)

// Address implements driver.Addresser: mysql.url at the first server.
func Address(r driver.Reach) []driver.Prop {
	if len(r.Addrs) == 0 {
		return nil
	}
	return []driver.Prop{{Key: Prefix + ".url", Value: fmt.Sprintf("%s@tcp(%s)/%s", driver.URLUser(r.User, r.Password), r.Addrs[0], r.Database)}}
}
