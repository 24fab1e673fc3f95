package dynamodb

import "github.com/dbarena/dbarena/driver"

// Address implements driver.Addresser: the endpoint of the first
// server, with the credentials DynamoDB Local and Alternator take (any).
func Address(r driver.Reach) []driver.Prop {
	if len(r.Addrs) == 0 {
		return nil
	}
	return []driver.Prop{{Key: Prefix + ".endpoint", Value: "http://" + r.Addrs[0]}, {Key: Prefix + ".region", Value: "us-east-1"},
		{Key: Prefix + ".accesskey", Value: "dbarena"}, {Key: Prefix + ".secretkey", Value: "dbarena"}}
}
