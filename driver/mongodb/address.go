package mongodb

import (
	"fmt"

	"github.com/dbarena/dbarena/driver"
)

// Address implements driver.Addresser: mongodb.url at the first server.
func Address(r driver.Reach) []driver.Prop {
	if len(r.Addrs) == 0 {
		return nil
	}
	return []driver.Prop{{Key: Prefix + ".url", Value: fmt.Sprintf("mongodb://%s/%s", r.Addrs[0], r.Database)}}
}
