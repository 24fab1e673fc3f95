package terraform

// The module's input variables: the clouds' (GCP, AWS) and the docker
// cloud's, from a target's request and options.

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/deploy"
)

// options are the provider's settings in deploy.options.
var optionNames = []string{"cloud", "project", "zone", "region", "availability_zone", "ami", "machine_type", "local_ssds",
	"loaders", "loader_machine_type", "operator_cidr", "ssh_user", "ssh_public_key", "ssh_identity", "image"}

// dockerOptions are the options the docker cloud takes: containers
// stand in for VMs, so machine types, zones and disks mean nothing.
var dockerOptions = []string{"cloud", "loaders", "ssh_user", "ssh_public_key", "ssh_identity", "image"}

// Vars are the module's input variables for a request.
func Vars(req deploy.Request) (cloud string, vars map[string]any, err error) {
	for k := range req.Options {
		if !slices.Contains(optionNames, k) {
			return "", nil, fmt.Errorf("terraform: %s: unknown option %q; valid: %s", req.Name, k, strings.Join(optionNames, ", "))
		}
	}
	cloud = req.Options["cloud"]
	switch cloud {
	case "gcp", "aws":
	case "docker":
		vars, err := dockerVars(req)
		return cloud, vars, err
	default:
		return "", nil, fmt.Errorf("terraform: %s: option cloud: want gcp, aws or docker, got %q", req.Name, cloud)
	}
	if _, ok := req.Options["image"]; ok {
		return "", nil, fmt.Errorf("terraform: %s: option image is the docker cloud's; on %s, deploy.version picks the tag", req.Name, cloud)
	}
	db, err := database(req.Name, req.Database, max(req.Nodes, 1))
	if err != nil {
		return "", nil, err
	}
	cidr := req.Options["operator_cidr"]
	if _, n, err := net.ParseCIDR(cidr); err != nil {
		return "", nil, fmt.Errorf("terraform: %s: option operator_cidr: want your address range such as 203.0.113.7/32, got %q", req.Name, cidr)
	} else if ones, _ := n.Mask.Size(); ones == 0 {
		return "", nil, fmt.Errorf("terraform: %s: option operator_cidr %s opens the VMs to the whole internet: give your own address range", req.Name, cidr)
	}
	key, err := publicKey(req)
	if err != nil {
		return "", nil, err
	}
	vars = map[string]any{
		"name": req.Name, "db_count": max(req.Nodes, 1), "db_image": db.image, "db_port": db.port,
		"db_data_dir": db.dataDir, "db_docker_flags": db.flags, "db_args": db.args, "db_init": db.init,
		"operator_cidr": cidr, "ssh_public_key": key,
	}
	if req.Version != "" {
		vars["db_image"] = strings.SplitN(db.image, ":", 2)[0] + ":" + req.Version
	}
	set := func(opt, v string) { // string options passed through
		if x := req.Options[opt]; x != "" {
			vars[v] = x
		}
	}
	set("machine_type", "db_machine_type")
	set("loader_machine_type", "loader_machine_type")
	set("ssh_user", "ssh_user")
	for _, o := range []string{"loaders", "local_ssds"} {
		n, ok, err := wholeNumber(req, o)
		if err != nil {
			return "", nil, err
		}
		if ok {
			name := map[string]string{"loaders": "loader_count", "local_ssds": "local_ssds"}[o]
			if cloud == "aws" && o == "local_ssds" {
				return "", nil, fmt.Errorf("terraform: %s: option local_ssds is GCP's; on AWS pick an instance type with instance storage (i3, i4i)", req.Name)
			}
			vars[name] = n
		}
	}
	switch cloud {
	case "gcp":
		if req.Options["project"] == "" {
			return "", nil, fmt.Errorf("terraform: %s: option project: want the GCP project to create the VMs in", req.Name)
		}
		set("project", "project")
		set("zone", "zone")
	case "aws":
		if req.Options["ami"] == "" {
			return "", nil, fmt.Errorf("terraform: %s: option ami: want a Debian 12 or Ubuntu AMI of the region (for Ubuntu, also ssh_user: ubuntu; Debian's user is admin)", req.Name)
		}
		set("ami", "ami")
		set("region", "region")
		set("availability_zone", "availability_zone")
	}
	return cloud, vars, nil
}

// dockerVars are the docker module's variables: the database's
// containers (one, or a cluster's nodes seeded by the first) and the
// loaders, on one Docker Engine (DOCKER_HOST), from an image the engine
// holds (option image: local picks scripts/images/build's; Cassandra's
// is named: dbarena.local/cassandra:5.0).
func dockerVars(req deploy.Request) (map[string]any, error) {
	for k := range req.Options {
		if !slices.Contains(dockerOptions, k) {
			return nil, fmt.Errorf("terraform: %s: option %s is for the gcp and aws clouds; the docker cloud takes %s", req.Name, k, strings.Join(dockerOptions, ", "))
		}
	}
	nodes := max(req.Nodes, 1)
	d, err := lookup(req.Name, req.Database, nodes)
	if err != nil {
		return nil, err
	}
	if nodes > 1 && !seedOnly(d) {
		// One command and environment serve every container: a node told
		// its own address or every node's needs a boot script's $SELF.
		return nil, fmt.Errorf("terraform: %s: nodes: %d: the docker cloud forms clusters of databases told only their seed (%s); %s needs each node told its own address: run it on gcp or aws, or with the compose provider",
			req.Name, nodes, strings.Join(deploy.Names(seedOnly), ", "), req.Database)
	}
	im := d.Image
	image, err := im.Choose(req.Options["image"], req.Version)
	if err != nil {
		return nil, fmt.Errorf("terraform: %s: %w", req.Name, err)
	}
	key, err := publicKey(req)
	if err != nil {
		return nil, err
	}
	var seedEnv []deploy.EnvVar
	var seedArgs []string
	if nodes > 1 {
		// The first node's name on the deployment's network (the
		// module's alias db-1) is every node's seed; each node's own
		// address is the container's, which the image finds itself.
		seedEnv, seedArgs = seeded(d.Cluster, seedAlias)
	}
	// The containers share one engine, as Compose's share a machine:
	// the catalogue's shared-machine settings (Cassandra's heap) apply.
	env := []string{}
	for _, v := range slices.Concat(im.Env, im.OpenEnv, im.SharedEnv, im.VM.Env, seedEnv) {
		env = append(env, v.Name+"="+v.Value)
	}
	// The Docker provider refuses an empty argument; the catalogue's
	// one, Redis's `--save ""` (no snapshots), reads a single space as
	// the same empty list.
	command := []string{}
	for _, a := range slices.Concat(seedArgs, im.Args, im.VM.Args) {
		if a == "" {
			a = " "
		}
		command = append(command, a)
	}
	vars := map[string]any{
		"name": req.Name, "db_count": nodes, "db_image": image, "db_port": im.Port, "db_data_dir": im.DataDir,
		"db_command": command, "db_env": env, "ssh_public_key": key,
	}
	if u := req.Options["ssh_user"]; u != "" {
		vars["ssh_user"] = u
	}
	n, ok, err := wholeNumber(req, "loaders")
	if err != nil {
		return nil, err
	}
	if ok {
		vars["loader_count"] = n
	}
	return vars, nil
}

// publicKey is the option ssh_public_key, which every cloud needs.
func publicKey(req deploy.Request) (string, error) {
	key := req.Options["ssh_public_key"]
	if key == "" {
		return "", fmt.Errorf("terraform: %s: option ssh_public_key: want the text of your public key, e.g. ${file:/home/me/.ssh/id_ed25519.pub}", req.Name)
	}
	return key, nil
}

// wholeNumber reads option o as a whole number >= 0; ok is false when
// it is not set.
func wholeNumber(req deploy.Request, o string) (n int, ok bool, err error) {
	x := req.Options[o]
	if x == "" {
		return 0, false, nil
	}
	n, err = strconv.Atoi(x)
	if err != nil || n < 0 {
		return 0, false, fmt.Errorf("terraform: %s: option %s: want a whole number >= 0, got %q", req.Name, o, x)
	}
	return n, true, nil
}

// seedAlias is the first database container's name on the docker
// cloud's network (modules/docker: db-1).
const seedAlias = "db-1"

// seedOnly reports whether d forms a cluster from a seed's address
// alone, which one environment for every container can give.
func seedOnly(d deploy.Database) bool {
	c := d.Cluster
	return runsOnVMs(d) && c != nil && (c.SeedEnv != "" || c.SeedFlag != "") && c.JoinFlag == "" && c.AdvertiseFlag == "" && len(c.Init) == 0
}
