package kubernetes

// Why pods did not come up: their states and events, in a line each.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// stuck says why a pod that selector picks will not become ready by
// waiting ("pod db-0 keeps crashing"), or returns "": a container that
// has crashed and been restarted crashLoops times, or one the kubelet
// cannot start for a reason that waiting does not mend (an image it may
// not or cannot pull, a configuration that refers to nothing).
func (d *deployment) stuck(ctx context.Context, selector string) string {
	pods, err := d.podStates(ctx, selector)
	if err != nil {
		return ""
	}
	for _, p := range pods.Items {
		for _, c := range p.Status.ContainerStatuses {
			if c.RestartCount >= crashLoops {
				return "pod " + p.Metadata.Name + " keeps crashing"
			}
			if w, ok := c.State["waiting"]; ok && hopeless[w.Reason] {
				return fmt.Sprintf("pod %s cannot start container %s (%s)", p.Metadata.Name, c.Name, w.Reason)
			}
		}
	}
	return ""
}

// podList is the part of `kubectl get pods -o json` that diagnose reads.
type podList struct {
	Items []struct {
		Metadata struct{ Name string }
		Status   struct {
			Phase      string
			Conditions []struct {
				Type, Status, Reason, Message string
			}
			ContainerStatuses []struct {
				Name             string
				Ready            bool
				RestartCount     int
				State, LastState map[string]struct {
					Reason, Message string
					ExitCode        *int
				}
			}
		}
	}
}

// podStates lists the pods selector picks, with their states.
func (d *deployment) podStates(ctx context.Context, selector string) (podList, error) {
	var pods podList
	out, err := d.kubectl(ctx, nil, "-n", d.ns, "get", "pods", "-l", selector, "-o", "json")
	if err != nil {
		return pods, err
	}
	return pods, json.Unmarshal([]byte(out), &pods)
}

// eventList is the part of `kubectl get events -o json` that diagnose
// reads.
type eventList struct {
	Items []struct {
		Type, Reason, Message string
		Count                 int
	}
}

// diagnose describes each pod that selector picks and that is not ready:
// its phase and conditions, its containers' states, its last events and
// the tail of its log. It is best effort: what kubectl cannot say is left
// out.
func (d *deployment) diagnose(ctx context.Context, selector string) string {
	pods, err := d.podStates(ctx, selector)
	if err != nil {
		return ""
	}
	var parts []string
	for _, p := range pods.Items {
		var why []string
		ready := false
		for _, c := range p.Status.Conditions {
			if c.Type == "Ready" && c.Status == "True" {
				ready = true
			}
			if c.Status != "True" && c.Reason != "" {
				why = append(why, strings.TrimSpace(fmt.Sprintf("%s: %s %s", c.Type, c.Reason, c.Message)))
			}
		}
		if ready {
			continue
		}
		for _, c := range p.Status.ContainerStatuses {
			for state, s := range c.State {
				if state == "running" && c.Ready {
					continue
				}
				w := fmt.Sprintf("container %s %s", c.Name, state)
				if s.Reason != "" {
					w += " (" + s.Reason + ")"
				}
				if s.ExitCode != nil {
					w += fmt.Sprintf(" exit code %d", *s.ExitCode)
				}
				if s.Message != "" {
					w += ": " + s.Message
				}
				why = append(why, w)
			}
			if last, ok := c.LastState["terminated"]; ok && last.ExitCode != nil {
				why = append(why, fmt.Sprintf("container %s restarted %d times, last exit code %d (%s)", c.Name, c.RestartCount, *last.ExitCode, last.Reason))
			}
		}
		text := fmt.Sprintf("pod %s is %s", p.Metadata.Name, p.Status.Phase)
		if len(why) > 0 {
			text += " (" + strings.Join(why, "; ") + ")"
		}
		if ev := d.events(ctx, p.Metadata.Name); ev != "" {
			text += "; events: " + ev
		}
		if logs, err := d.kubectl(ctx, nil, "-n", d.ns, "logs", p.Metadata.Name, "--all-containers", "--tail", "10"); err == nil && strings.TrimSpace(logs) != "" {
			text += "; log tail:\n" + strings.TrimRight(logs, "\n")
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, "\n")
}

// events are the last five events of pod, oldest first, each once.
func (d *deployment) events(ctx context.Context, pod string) string {
	out, err := d.kubectl(ctx, nil, "-n", d.ns, "get", "events", "--field-selector", "involvedObject.name="+pod,
		"--sort-by", ".metadata.creationTimestamp", "-o", "json")
	if err != nil {
		return ""
	}
	var evs eventList
	if json.Unmarshal([]byte(out), &evs) != nil {
		return ""
	}
	items := evs.Items
	if len(items) > 5 {
		items = items[len(items)-5:]
	}
	var texts []string
	for _, e := range items {
		t := fmt.Sprintf("%s %s: %s", e.Type, e.Reason, strings.TrimSpace(e.Message))
		if e.Count > 1 {
			t += fmt.Sprintf(" (%d times)", e.Count)
		}
		texts = append(texts, t)
	}
	return strings.Join(texts, "; ")
}
