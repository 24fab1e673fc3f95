// Test helper for java_test.go, run as a single-file program:
//
//   java -cp HdrHistogram.jar HlogTool.java gen OUT
//       writes a log with the Java HistogramLogWriter: 4 one-second intervals
//       from StartTime 1709294400.250, tagged READ, untagged, READ,
//       untagged; interval i holds 1..1000*(i+1) microseconds in nanoseconds.
//   java -cp HdrHistogram.jar HlogTool.java copy IN OUT
//       reads IN with the Java HistogramLogReader and writes every interval
//       again with HistogramLogWriter; prints the number of intervals.
//
// The copy proves that Java decodes every bucket of dbarena's payloads, not
// only the percentiles that HistogramLogProcessor prints.
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.HdrHistogram.HistogramLogWriter;

public class HlogTool {
    static final long START_MSEC = 1709294400250L;

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("gen")) {
            gen(args[1]);
        } else if (args.length == 3 && args[0].equals("copy")) {
            copy(args[1], args[2]);
        } else {
            System.err.println("usage: HlogTool gen OUT | copy IN OUT");
            System.exit(2);
        }
    }

    static void gen(String out) throws Exception {
        try (PrintStream ps = new PrintStream(out)) {
            HistogramLogWriter w = header(ps, START_MSEC);
            for (int i = 0; i < 4; i++) {
                Histogram h = new Histogram(1, 3600L * 1000 * 1000 * 1000, 3);
                for (long us = 1; us <= 1000L * (i + 1); us++) {
                    h.recordValue(us * 1000);
                }
                h.setStartTimeStamp(START_MSEC + i * 1000L);
                h.setEndTimeStamp(START_MSEC + (i + 1) * 1000L);
                h.setTag(i % 2 == 0 ? "READ" : null);
                w.outputIntervalHistogram(h);
            }
        }
    }

    static void copy(String in, String out) throws Exception {
        List<EncodableHistogram> all = new ArrayList<>();
        long startMsec;
        try (HistogramLogReader r = new HistogramLogReader(in)) {
            EncodableHistogram h;
            while ((h = r.nextIntervalHistogram()) != null) {
                all.add(h);
            }
            startMsec = Math.round(r.getStartTimeSec() * 1000);
        }
        try (PrintStream ps = new PrintStream(out)) {
            HistogramLogWriter w = header(ps, startMsec);
            for (EncodableHistogram h : all) {
                w.outputIntervalHistogram(h);
            }
        }
        System.out.println(all.size());
    }

    static HistogramLogWriter header(PrintStream ps, long startMsec) {
        HistogramLogWriter w = new HistogramLogWriter(ps);
        w.outputComment("[written by HlogTool.java]");
        w.outputLogFormatVersion();
        w.outputStartTime(startMsec);
        w.setBaseTime(startMsec);
        w.outputLegend();
        return w;
    }
}
