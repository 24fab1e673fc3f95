package redis

import "github.com/dbarena/dbarena/driver"

// SetSnapshotCap lowers the accounts a snapshot sum reads, so that a
// test reaches the limit with few records.
func SetSnapshotCap(db driver.DB, n int64) { db.(*DB).snapshotCap = n }
