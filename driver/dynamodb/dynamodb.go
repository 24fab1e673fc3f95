// Package dynamodb is the dbarena driver for Amazon DynamoDB and the
// databases that speak its API: ScyllaDB Alternator and DynamoDB Local.
//
// Data is laid out as YCSB's DynamoDB binding lays it out, so that a table
// loaded by either tool reads in the other: one item per record, the YCSB
// key in a string hash key attribute (dynamodb.primarykey), and one string
// attribute per field. Reads are GetItem with a projection, scans are Scan
// from the start key (DynamoDB has no key order across hash keys), updates
// are UpdateItem with SET, inserts PutItem and batched loads BatchWriteItem.
//
// Every call asks for the consumed capacity; the driver adds up the read
// and write capacity units, the SDK's retries and the throttled attempts,
// and reports them as counters, since capacity is what DynamoDB bills.
package dynamodb

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/logging"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/internal/redact"
)

// dummyAccessKey and dummySecretKey sign requests to an endpoint override
// when no credentials are given: DynamoDB Local and Alternator (without
// its authorization enabled) accept any.
const (
	dummyAccessKey = "dbarena"
	dummySecretKey = "dbarena"
)

// DB is an opened DynamoDB endpoint, safe for concurrent use.
type DB struct {
	cfg       Config
	log       *slog.Logger
	client    *dynamodb.Client
	transport *http.Transport
	acct      *accounting
}

var (
	_ driver.DB            = (*DB)(nil)
	_ driver.SchemaManager = (*DB)(nil)
	_ driver.CounterSource = (*DB)(nil)
)

// Open is the driver.Opener.
func Open(ctx context.Context, p driver.Params) (driver.DB, error) {
	cfg, err := ParseConfig(p.Props, p.Workers)
	if err != nil {
		return nil, driver.BadConfig(err)
	}
	return New(ctx, cfg, p.Logger)
}

// New opens a DB with a parsed configuration and checks that the endpoint
// answers within the connect timeout.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*DB, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	db := &DB{cfg: cfg, log: log, acct: &accounting{}}
	// The keys may come from dynamodb.awsCredentialsFile, where the
	// properties (and so whoever prints this error) do not see them.
	hide := redact.New(cfg.AccessKey, cfg.SecretKey)
	if err := db.connect(ctx); err != nil {
		return nil, hide.Error(err)
	}
	if err := db.ping(ctx); err != nil {
		db.transport.CloseIdleConnections()
		return nil, hide.Error(err)
	}
	return db, nil
}

// connect builds the SDK client: an HTTP transport sized to the workers,
// the SDK's standard retryer without its client-side retry quota, and the
// accounting middleware.
func (db *DB) connect(ctx context.Context) error {
	cfg := db.cfg
	// The SDK's buildable client is what the configuration loader adds a
	// custom CA bundle (AWS_CA_BUNDLE) to; the transport is taken out of
	// it afterwards so that Close can close its connections.
	bc := awshttp.NewBuildableClient().
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = cfg.ConnectTimeout }).
		WithTransportOptions(func(tr *http.Transport) {
			tr.TLSHandshakeTimeout = cfg.ConnectTimeout
			tr.MaxIdleConns = cfg.Pool
			tr.MaxIdleConnsPerHost = cfg.Pool
		})
	// The quota (a token bucket the standard retryer drains on every
	// retry) would stop retries after a burst of throttling and make the
	// retry behaviour of a run depend on its history; a benchmark wants
	// every request to get the same retry policy.
	retryer := retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = cfg.MaxRetries + 1
		o.MaxBackoff = cfg.MaxBackoff
		o.RateLimiter = ratelimit.None
	})
	opts := []func(*config.LoadOptions) error{
		config.WithRegion(cfg.Region),
		config.WithHTTPClient(bc),
		config.WithRetryer(func() aws.Retryer { return retryer }),
		config.WithLogger(sdkLogger{db.log}),
	}
	ak, sk := cfg.AccessKey, cfg.SecretKey
	if ak == "" && cfg.Endpoint != "" {
		ak, sk = dummyAccessKey, dummySecretKey
	}
	if ak != "" {
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(ak, sk, "")))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return fmt.Errorf("dynamodb: load AWS configuration: %w", err)
	}
	if b, ok := awsCfg.HTTPClient.(*awshttp.BuildableClient); ok {
		bc = b
	}
	db.transport = bc.GetTransport()
	awsCfg.HTTPClient = &http.Client{
		Transport: db.transport,
		Timeout:   cfg.Timeout,
		// DynamoDB never redirects; a redirect means a wrong endpoint.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	db.client = dynamodb.NewFromConfig(awsCfg, func(o *dynamodb.Options) {
		if cfg.Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoint)
		}
		o.APIOptions = append(o.APIOptions, db.acct.register)
	})
	return nil
}

// ping describes the run's table, so that a wrong endpoint, region or
// credentials fail at once with one clear error. A missing table is fine:
// the load creates it. DescribeTable rather than ListTables because an IAM
// policy scoped to one table usually allows the former only.
func (db *DB) ping(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, db.cfg.ConnectTimeout)
	defer cancel()
	// One attempt: retrying a refused connection until the deadline would
	// replace "connection refused" with "deadline exceeded" in the error.
	_, err := db.client.DescribeTable(pctx, &dynamodb.DescribeTableInput{TableName: aws.String(db.cfg.Table)},
		func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	switch code := apiCode(err); {
	case err == nil, code == codeNotFound:
		return nil
	case code == codeAccessDenied:
		db.log.Warn("dynamodb: DescribeTable denied; continuing, but schema checks will fail",
			"endpoint", db.cfg.Address(), "table", db.cfg.Table)
		return nil
	case code == "" && httpStatus(err) == 0:
		return driver.Unreachable("dynamodb", db.cfg.Address(), db.cfg.ConnectTimeout, err)
	}
	return fmt.Errorf("dynamodb at %s (region %s) refused DescribeTable %s (check the endpoint, region and credentials): %w",
		db.cfg.Address(), db.cfg.Region, db.cfg.Table, err)
}

// sdkLogger sends the SDK's messages to the driver's logger at debug
// level. The SDK warns on every error response that lacks an X-Amz-Crc32
// header (DynamoDB Local's, for a failed condition among others), which
// at warning level would log per operation.
type sdkLogger struct{ log *slog.Logger }

// Logf implements logging.Logger.
func (l sdkLogger) Logf(c logging.Classification, format string, v ...any) {
	if l.log.Enabled(context.Background(), slog.LevelDebug) {
		l.log.Debug("aws-sdk: "+fmt.Sprintf(format, v...), "classification", string(c))
	}
}

// Session implements driver.DB.
func (db *DB) Session(_ context.Context, worker int) (driver.Session, error) {
	return newSession(db, worker), nil
}

// Close implements driver.DB. The SDK client holds nothing but the HTTP
// connections.
func (db *DB) Close() error {
	db.transport.CloseIdleConnections()
	return nil
}

// Counters implements driver.CounterSource.
func (db *DB) Counters() []driver.Counter { return db.acct.counters() }
