package merge

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Offset is how far a loader host's wall clock is ahead of the
// coordinator's: a loader timestamp t happened at coordinator time
// t - Offset, give or take Uncertainty (for clocks that do not drift
// during the run).
type Offset struct {
	Offset      time.Duration
	Uncertainty time.Duration
}

// Exchange asks a loader host for its wall-clock time once.
type Exchange func(ctx context.Context) (time.Time, error)

// offsetSamples is the number of exchanges MeasureOffset makes: over a
// pipe to a local process or an ssh session on a LAN, round trips after
// the first differ by tens of microseconds, so a handful is plenty.
const offsetSamples = 8

// MeasureOffset measures a host's clock offset the way NTP does: it reads
// its own clock (now) before and after each exchange; the remote time is
// taken as read at the midpoint, so offset = remote - midpoint, and the
// uncertainty is half the round trip. Of several exchanges it keeps the
// one with the shortest round trip.
func MeasureOffset(ctx context.Context, ask Exchange, now func() time.Time) (Offset, error) {
	best := Offset{Uncertainty: -1}
	for i := range offsetSamples {
		t0 := now()
		remote, err := ask(ctx)
		t1 := now()
		if err != nil {
			return Offset{}, fmt.Errorf("clock exchange %d: %w", i+1, err)
		}
		half := t1.Sub(t0) / 2
		if best.Uncertainty < 0 || half < best.Uncertainty {
			best = Offset{Offset: remote.Sub(t0.Round(0).Add(half)), Uncertainty: half}
		}
	}
	return best, nil
}

// MeasureCommand measures the clock of the host a command runs on: argv
// is `PREFIX... dbarena clock`, which prints its wall clock in
// nanoseconds since the epoch for every line it reads.
func MeasureCommand(ctx context.Context, argv []string) (Offset, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return Offset{}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return Offset{}, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return Offset{}, fmt.Errorf("clock probe %s: %w", strings.Join(argv, " "), err)
	}
	rd := bufio.NewReader(stdout)
	ask := func(context.Context) (time.Time, error) {
		if _, err := io.WriteString(stdin, "t\n"); err != nil {
			return time.Time{}, err
		}
		line, err := rd.ReadString('\n')
		if err != nil {
			return time.Time{}, fmt.Errorf("read answer: %w (stderr: %s)", err, strings.TrimSpace(stderr.String()))
		}
		ns, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("answer %q: want nanoseconds since the epoch", line)
		}
		return time.Unix(0, ns), nil
	}
	o, err := MeasureOffset(ctx, ask, time.Now)
	stdin.Close() // end of input ends the clock command
	return o, errors.Join(err, cmd.Wait())
}
