/*
Copyright 2026 The applyset-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Command manager runs the applyset-operator controllers and webhooks.
package main

import (
	"cmp"
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
	_ "time/tzdata" // The image is FROM scratch: delivery windows read time zones from the binary.

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsfilters "sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/controllers/parents"
	"github.com/applyset-operator/applyset-operator/internal/depwatch"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/internal/reqcount"
	"github.com/applyset-operator/applyset-operator/internal/tracing"
	"github.com/applyset-operator/applyset-operator/internal/version"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

var (
	scheme   = runtime.NewScheme()
	setupLog = ctrl.Log.WithName("setup")
)

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(apiextensionsv1.AddToScheme(scheme))
	utilruntime.Must(applyv1alpha1.AddToScheme(scheme))
	utilruntime.Must(featuresv1alpha1.AddToScheme(scheme))
}

// options are the manager's command-line settings.
type options struct {
	printVersion            bool
	metricsAddr             string
	secureMetrics           bool
	enableHTTP2             bool
	probeAddr               string
	leaderElection          bool
	leaderElectionNamespace string
	webhooks                webhookOptions
	shard                   shardOptions
	replicas                replicaOptions
	gracefulShutdownTimeout time.Duration

	repairTooling     string
	toolingAppliers   string
	orphanPolicy      string
	orphanGracePeriod time.Duration
	reverifyInterval  time.Duration
	permissionTTL     time.Duration

	featureGateBackend string

	defaultServiceAccount string
	singleTenant          bool
	maxSetInputSize       resource.Quantity
	maxBuildMemory        resource.Quantity
	maxBuilds             int
	buildCache            resource.Quantity
	maxReconcileTime      time.Duration
	minInterval           time.Duration
	maxSetObjects         int
	setConcurrency        int
	applyConcurrency      int
	depWatches            int
	depWatchesPerNS       int
	legacyManagers        string
	artifactAllowedHosts  string
	externalArtifactHosts string

	kubeAPIQPS   float64
	kubeAPIBurst int
}

func (o *options) bindFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.printVersion, "version", false,
		"Print the manager's version, the one its sets' tooling annotation names, and exit.")
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", "0",
		"Address the metrics endpoint binds to, e.g. :8443 (HTTPS) or :8080 (HTTP); 0 disables it.")
	fs.BoolVar(&o.secureMetrics, "metrics-secure", true,
		"Serve metrics over HTTPS, authenticated and authorized through the API server.")
	fs.BoolVar(&o.enableHTTP2, "enable-http2", false,
		"Serve the metrics and webhook servers over HTTP/2 too (off: see CVE-2023-44487).")
	fs.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081",
		"Address the /healthz and /readyz endpoints bind to; 0 disables them.")
	fs.BoolVar(&o.leaderElection, "leader-elect", false,
		"Elect a leader so that only one replica of the manager is active.")
	fs.StringVar(&o.leaderElectionNamespace, "leader-election-namespace", "",
		"Namespace of the leader election lease; defaults to the manager's own namespace.")
	fs.DurationVar(&o.gracefulShutdownTimeout, "graceful-shutdown-timeout", 30*time.Second,
		"How long running reconciles may take to finish after a stop signal.")

	fs.StringVar(&o.repairTooling, "repair-tooling", "",
		"Comma-separated tooling names (e.g. kubectl) whose ApplySet parents may have their contains-group-kinds hint rewritten; others are only verified.")
	fs.StringVar(&o.toolingAppliers, "tooling-field-managers", "",
		"Comma-separated TOOLING=FIELD_MANAGER pairs naming, besides kubectl=kubectl and applyset-operator=applyset-operator, "+
			"the field managers with which a tool applies its members. Hint repairs and orphan deletion count a member only when "+
			"one of these applied its part-of label.")
	fs.StringVar(&o.orphanPolicy, "orphan-policy", string(parents.OrphanReport),
		"What to do with members whose parent does not exist: report (Event and metric) or delete (after the grace period). "+
			"Orphans are deleted as their namespace's --default-service-account, with its rights; cluster-scoped ones never.")
	fs.DurationVar(&o.orphanGracePeriod, "orphan-grace-period", 5*time.Minute,
		"How long an orphan is reported before --orphan-policy=delete deletes it.")
	fs.StringVar(&o.defaultServiceAccount, "default-service-account", "default",
		"Name of the ServiceAccount, in the ApplySet's own namespace, that an ApplySet naming none acts as; empty leaves such sets without an identity. "+
			"Set the same name in the ConfigMap applyset-operator-default-service-account, which the admission policy reads.")
	fs.BoolVar(&o.singleTenant, "single-tenant", false,
		"Let sets that name no ServiceAccount act as the operator itself, with all its permissions (needs the cluster-writer role). "+
			"Only for clusters where everyone who may create an ApplySet is trusted as much as the operator.")
	fs.IntVar(&o.setConcurrency, "concurrent-set-reconciles", applysets.DefaultConcurrency,
		"How many ApplySets, and how many ClusterApplySets, are reconciled at once.")
	fs.IntVar(&o.applyConcurrency, "concurrent-applies", apply.DefaultConcurrency,
		"How many requests (applies, deletes, reads) one set has in flight at once.")
	fs.StringVar(&o.legacyManagers, "legacy-field-managers", strings.Join(apply.DefaultLegacyManagers, ","),
		"Comma-separated field managers of client-side applies whose ownership a set takes over after its first apply of an object "+
			"(their update entries and kubectl's last-applied annotation go), so that a field the set stops declaring goes; "+
			"empty hands over none.")
	fs.DurationVar(&o.permissionTTL, "permission-cache-ttl", applysets.DefaultPermissionTTL,
		"How long the answer to a set's permission check is reused by the sets acting as the same identity; any change to RBAC "+
			"drops every answer at once, so this bounds only what other authorizers (webhooks) decide; 0 asks every time.")
	fs.DurationVar(&o.reverifyInterval, "reverify-interval", time.Hour,
		"How often every ApplySet parent is verified again without a change, a guard against missed events.")
	fs.StringVar(&o.featureGateBackend, "featuregate-backend", backendAuto,
		"What enforces CustomFeatureGates: policy (admission policies the API server runs, no webhook), webhook, "+
			"or auto (policy where the API server serves admissionregistration.k8s.io/v1 MutatingAdmissionPolicies).")
	o.bindBoundFlags(fs)
	o.bindArtifactFlags(fs)
	o.webhooks.bindFlags(fs)
	o.shard.bindFlags(fs)
	o.replicas.bindFlags(fs)
}

// sizeFlag binds a flag whose value is a positive size, such as 32Mi.
func sizeFlag(fs *flag.FlagSet, q *resource.Quantity, name, usage string) {
	fs.Func(name, usage, func(value string) error {
		parsed, err := resource.ParseQuantity(value)
		if err != nil || parsed.Sign() <= 0 {
			return fmt.Errorf("want a positive size such as 32Mi, got %q", value)
		}
		*q = parsed
		return nil
	})
}

func main() {
	var opts options
	opts.bindFlags(flag.CommandLine)
	zapOpts := zap.Options{Development: false}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	if opts.printVersion {
		fmt.Print(version.Line("applyset-operator"))
		return
	}
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))

	if err := opts.validate(); err != nil {
		setupLog.Error(err, "Invalid flags")
		os.Exit(2)
	}
	if err := run(opts); err != nil {
		setupLog.Error(err, "Manager stopped with an error")
		os.Exit(1)
	}
}

// validate checks what the flags' types cannot.
func (o *options) validate() error {
	if o.maxSetObjects <= 0 || o.setConcurrency <= 0 || o.applyConcurrency <= 0 {
		return fmt.Errorf("--max-set-objects, --concurrent-set-reconciles and --concurrent-applies must be positive, got %d, %d and %d",
			o.maxSetObjects, o.setConcurrency, o.applyConcurrency)
	}
	if o.minInterval <= 0 {
		return fmt.Errorf("--min-interval must be positive, got %s", o.minInterval)
	}
	if o.maxReconcileTime < 0 || o.maxBuilds < 0 {
		return fmt.Errorf("--max-reconcile-time and --max-builds must not be negative, got %s and %d", o.maxReconcileTime, o.maxBuilds)
	}
	if o.maxReconcileTime == 0 {
		o.maxReconcileTime = applysets.MaxReconcileTimeFor(o.maxSetObjects)
	}
	if o.permissionTTL < 0 {
		return fmt.Errorf("--permission-cache-ttl must not be negative, got %s", o.permissionTTL)
	}
	if _, _, err := o.artifactPolicies(); err != nil {
		return err
	}
	if o.kubeAPIQPS == 0 || o.kubeAPIQPS > 0 && o.kubeAPIBurst <= 0 {
		return fmt.Errorf("--kube-api-qps must be positive (with a positive --kube-api-burst) or negative for no client-side limit, got %v and %d",
			o.kubeAPIQPS, o.kubeAPIBurst)
	}
	return o.shard.validate(o.webhooks.disabled)
}

func run(opts options) error {
	var tlsOpts []func(*tls.Config)
	if !opts.enableHTTP2 {
		tlsOpts = append(tlsOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	}

	metricsOpts := metricsserver.Options{
		BindAddress:   opts.metricsAddr,
		SecureServing: opts.secureMetrics,
		TLSOpts:       tlsOpts,
	}
	if opts.secureMetrics {
		metricsOpts.FilterProvider = metricsfilters.WithAuthenticationAndAuthorization
	}

	gracefulShutdownTimeout := opts.gracefulShutdownTimeout
	stopTraces, err := startTraces()
	if err != nil {
		return err
	}
	defer stopTraces()
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	cfg = reqcount.WrapConfig(tracing.WrapConfig(cfg))
	cfg.QPS, cfg.Burst = float32(opts.kubeAPIQPS), opts.kubeAPIBurst
	if err := opts.replicas.identify(cfg); err != nil {
		return err
	}
	mgrOpts := ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsOpts,
		HealthProbeBindAddress:  opts.probeAddr,
		LeaderElection:          opts.leaderElection,
		LeaderElectionID:        identity.LeaderElectionID,
		LeaderElectionNamespace: opts.leaderElectionNamespace,
		// Reconciles in flight finish before the process exits, and the lease is
		// handed over at once instead of after it expires.
		LeaderElectionReleaseOnCancel: true,
		GracefulShutdownTimeout:       &gracefulShutdownTimeout,
	}
	opts.shard.managerOptions(&mgrOpts)
	applysets.CacheOptions(&mgrOpts.Cache)
	mgr, err := ctrl.NewManager(cfg, mgrOpts)
	if err != nil {
		return fmt.Errorf("creating the manager: %w", err)
	}

	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return err
	}

	if err := setupControllers(mgr, cfg, opts, tlsOpts); err != nil {
		return err
	}

	// Logged once caches have synced and controllers run, so a person (or a
	// script) watching the log knows the operator is serving.
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		setupLog.Info("Manager started")
		<-ctx.Done()
		setupLog.Info("Stopping manager")
		return nil
	})); err != nil {
		return err
	}

	setupLog.Info("Starting manager")
	return mgr.Start(ctrl.SetupSignalHandler())
}

// setupControllers adds the controllers --controllers names, and the
// webhooks beside the feature gates', to mgr.
func setupControllers(mgr ctrl.Manager, cfg *rest.Config, opts options, tlsOpts []func(*tls.Config)) error {
	appliers, err := membership.ParseAppliers(opts.toolingAppliers, membership.NewAppliers(identity.TrustedAppliers()))
	if err != nil {
		return fmt.Errorf("--tooling-field-managers: %w", err)
	}
	if opts.shard.runs(controllerParents) {
		if err := parents.SetupWithManager(mgr, parents.Options{
			Appliers:          appliers,
			RepairTooling:     splitList(opts.repairTooling),
			OrphanPolicy:      parents.OrphanPolicy(opts.orphanPolicy),
			OrphanGracePeriod: opts.orphanGracePeriod,
			OrphanDeleter:     opts.defaultServiceAccount,
			Resync:            opts.reverifyInterval,
		}); err != nil {
			return fmt.Errorf("setting up the parent reconciler: %w", err)
		}
	}

	if strings.Contains(opts.defaultServiceAccount, "/") {
		return fmt.Errorf("--default-service-account=%s: give a name only; the account is looked up in each ApplySet's namespace",
			opts.defaultServiceAccount)
	}
	allowedHosts, externalHosts, err := opts.artifactPolicies()
	if err != nil {
		return err
	}
	if opts.shard.runs(controllerApplySets) {
		shared, err := opts.replicas.membership(mgr, opts.leaderElectionNamespace)
		if err != nil {
			return err
		}
		if err := applysets.SetupWithManager(mgr, applysets.Options{Replicas: shared,
			ToolingVersion: version.String(), DefaultServiceAccount: opts.defaultServiceAccount, SingleTenant: opts.singleTenant,
			MaxInputBytes: opts.maxSetInputSize.Value(), MaxObjects: opts.maxSetObjects, Concurrency: opts.setConcurrency,
			ApplyConcurrency: opts.applyConcurrency, ArtifactPolicy: allowedHosts, ExternalArtifactHosts: externalHosts,
			BuildMemory: opts.maxBuildMemory.Value(), MaxBuilds: opts.maxBuilds, BuildCache: opts.buildCache.Value(), MaxReconcileTime: opts.maxReconcileTime, MinInterval: opts.minInterval,
			DependencyWatches:  depwatch.Limits{Total: opts.depWatches, PerNamespace: opts.depWatchesPerNS},
			InventoryNamespace: os.Getenv("POD_NAMESPACE"),                            // holds ClusterApplySets' inventory chunks
			LegacyManagers:     append([]string{}, splitList(opts.legacyManagers)...), // empty hands over none
			PermissionTTL:      cmp.Or(opts.permissionTTL, -1),                        // 0 asks every time
		}); err != nil {
			return fmt.Errorf("setting up the ApplySet reconcilers: %w", err)
		}
	}

	if opts.shard.runs(controllerFeatureGates) {
		backend, err := setupFeatureGates(mgr, cfg, opts)
		if err != nil {
			return err
		}
		if err := setupWebhooks(mgr, opts.webhooks, backend, tlsOpts); err != nil {
			return fmt.Errorf("setting up the webhooks: %w", err)
		}
	}
	return nil
}

// splitList reads a comma-separated flag value, ignoring blanks.
func splitList(value string) []string {
	var out []string
	for _, item := range strings.Split(value, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
