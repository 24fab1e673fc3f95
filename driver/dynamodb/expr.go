package dynamodb

import (
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/record"
)

// maxCachedExprs bounds each session's expression caches. YCSB workloads
// use a handful of field sets (one field, or all); a workload that draws
// arbitrary subsets builds the rest per call instead of growing the cache.
const maxCachedExprs = 256

// Expression placeholders. Field names go through ExpressionAttributeNames
// always, because YCSB's field names may collide with DynamoDB's reserved
// words (there are 573, including NAME, VALUE and KEY).
const (
	keyName        = "#k"
	condKeyExists  = "attribute_exists(#k)"
	condKeyMissing = "attribute_not_exists(#k)"
)

// projection is a ProjectionExpression with its attribute names.
type projection struct {
	expr  string
	names map[string]string
}

// update is an UpdateExpression that sets some fields, with its attribute
// names and the placeholders its values go to, in field order.
type update struct {
	expr   string
	names  map[string]string
	values []string
}

// exprCache builds expressions once per field set. It belongs to one
// session, so it needs no lock; the maps it hands out are read-only.
type exprCache struct {
	pk          string
	conditional bool
	projections map[string]*projection
	updates     map[string]*update
	lookup      []byte
}

func newExprCache(pk string, conditional bool) *exprCache {
	return &exprCache{pk: pk, conditional: conditional,
		projections: make(map[string]*projection), updates: make(map[string]*update)}
}

// fieldSetKey writes the names into the scratch buffer, separated by a
// byte no field name contains, and returns it; map lookups with
// string(key) do not allocate.
func (c *exprCache) fieldSetKey(n int, name func(int) string) []byte {
	b := c.lookup[:0]
	for i := 0; i < n; i++ {
		b = append(b, name(i)...)
		b = append(b, 0)
	}
	c.lookup = b
	return b
}

// projection returns the projection of the given fields.
func (c *exprCache) projection(fields []string) *projection {
	key := c.fieldSetKey(len(fields), func(i int) string { return fields[i] })
	if p, ok := c.projections[string(key)]; ok {
		return p
	}
	p := &projection{names: make(map[string]string, len(fields))}
	var sb strings.Builder
	for i, f := range fields {
		if i > 0 {
			sb.WriteString(", ")
		}
		ph := "#f" + strconv.Itoa(i)
		sb.WriteString(ph)
		p.names[ph] = strings.Clone(f)
	}
	p.expr = sb.String()
	if len(c.projections) < maxCachedExprs {
		c.projections[string(key)] = p
	}
	return p
}

// update returns the update expression setting the fields of values. With
// conditional writes its names include the key attribute, which the
// condition refers to; DynamoDB rejects names an expression does not use.
func (c *exprCache) update(values record.Record) *update {
	key := c.fieldSetKey(len(values), func(i int) string { return values[i].Name })
	if u, ok := c.updates[string(key)]; ok {
		return u
	}
	u := &update{names: make(map[string]string, len(values)+1), values: make([]string, len(values))}
	if c.conditional {
		u.names[keyName] = c.pk
	}
	var sb strings.Builder
	sb.WriteString("SET ")
	for i, f := range values {
		if i > 0 {
			sb.WriteString(", ")
		}
		n, v := "#f"+strconv.Itoa(i), ":v"+strconv.Itoa(i)
		sb.WriteString(n)
		sb.WriteString(" = ")
		sb.WriteString(v)
		u.names[n] = strings.Clone(f.Name)
		u.values[i] = v
	}
	u.expr = sb.String()
	if len(c.updates) < maxCachedExprs {
		c.updates[string(key)] = u
	}
	return u
}
