// Package hlog writes and reads HdrHistogram interval logs in the format of
// the Java HdrHistogram HistogramLogWriter and HistogramLogReader (log format
// version 1.3), so that HistogramLogProcessor, the HdrHistogram plotters and
// every other tool of that family read dbarena's logs, and dbarena reads
// theirs.
//
// A log is a few "#" header lines, a CSV legend and one line per interval:
//
//	#[Histogram log format version 1.3]
//	#[dbarena; values in nanoseconds]
//	#[StartTime: 1700000000.250 (seconds since epoch), Tue Nov 14 22:13:20 UTC 2023]
//	#[BaseTime: 1700000000.250 (seconds since epoch)]
//	"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
//	Tag=READ,0.000,1.000,2.769,HISTFAAAAEV42pNpmSzMwMCoz...
//	0.000,1.000,3.015,HISTFAAAAEl42pNpmSzMwMAgxQABTBDKT4GBgdnN...
//
// The interval start is in seconds after the BaseTime and the length in
// seconds, both with millisecond resolution. Interval_Max is the interval's
// largest value divided by [MaxValueUnitRatio]: dbarena records nanoseconds,
// so the column is in milliseconds, as with the Java writer's default. The
// last field is the base64 of the histogram's V2 compressed encoding, the
// same bytes Java's encodeIntoCompressedByteBuffer produces. A line without
// "Tag=" is untagged; HistogramLogProcessor reads only untagged lines unless
// given -tag.
//
// The package does not use hdrhistogram-go's own log writer, whose header and
// interval fields have differed from Java's in some versions; the tests run
// the Java HistogramLogProcessor over the logs written here (see java_test.go
// and scripts/fetch-hdrhistogram-jar).
package hlog
