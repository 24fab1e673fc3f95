package kubernetes

// Why pods did not come up: their states and events, in a line each.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// stuck says why a pod that selector picks will not become ready by
// waiting ("pod db-0 keeps crashing"), or returns "": a container that
// has crashed and been restarted crashLoops times, one the kubelet
// cannot start for a reason that waiting does not mend (an image it may
// not or cannot pull, a configuration that refers to nothing), or a pod
// the scheduler has found no node with the CPU or memory for, for
// unschedulableFor, where no cluster autoscaler may add one.
func (d *deployment) stuck(ctx context.Context, selector string) string {
	pods, err := d.podStates(ctx, selector)
	if err != nil {
		return ""
	}
	for _, p := range pods.Items {
		if why := unschedulable(p.Status.Conditions, time.Now()); why != "" && !d.autoscaled(ctx) {
			return fmt.Sprintf("pod %s cannot be scheduled, and no cluster autoscaler may add a node: %s", p.Metadata.Name, why)
		}
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
			Phase             string
			Conditions        []condition
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

// condition is one of a pod's conditions.
type condition struct {
	Type, Status, Reason, Message string
	LastTransitionTime            time.Time
}

// unschedulableFor is how long the scheduler must have found no node
// with room for a pod before waiting is given up: a pod of a deployment
// torn down a moment before may still hold the room.
const unschedulableFor = 10 * time.Second

// unschedulable returns the scheduler's message when conditions say the
// pod has waited unschedulableFor or longer for a node with the CPU or
// memory it requests ("0/1 nodes are available: 1 Insufficient cpu"),
// else "". Other reasons (a volume claim not yet bound) may mend by
// waiting.
func unschedulable(conds []condition, now time.Time) string {
	for _, c := range conds {
		if c.Type == "PodScheduled" && c.Status == "False" && c.Reason == "Unschedulable" &&
			strings.Contains(c.Message, "Insufficient") && !c.LastTransitionTime.IsZero() &&
			now.Sub(c.LastTransitionTime) >= unschedulableFor {
			return c.Message
		}
	}
	return ""
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
