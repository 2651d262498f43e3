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

// Package applysets reconciles ApplySet and ClusterApplySet objects: it applies
// their declared objects with the apply engine, prunes what left the set, keeps
// the KEP-3659 parent contract on the object itself, and reports the plan and
// the outcome in status.
package applysets

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/requeue"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

const (
	// FieldManager owns the fields of the members the operator applies.
	FieldManager = "applyset-operator"
	// HintsFieldManager owns the ID label and hint annotations on the operator's own parents.
	HintsFieldManager = "applyset-operator-hints"
	// ToolingName is the tooling name of the operator's sets.
	ToolingName = "applyset-operator"
	// Finalizer holds a set until its members are pruned or disbanded.
	Finalizer = "apply.applyset.dev/members"
)

// Reconciler reconciles one kind: ApplySet or ClusterApplySet.
type Reconciler struct {
	// Client reads and patches the sets (cached).
	Client client.Client
	// Reader reads sources uncached, so that Secrets are not cached.
	Reader client.Reader
	// Config is the operator's identity, impersonated from for serviceAccountName.
	Config *rest.Config
	Mapper meta.RESTMapper
	Scheme *runtime.Scheme
	// Recorder receives the Events about sets.
	Recorder events.EventRecorder
	// NewSet returns an empty object of the reconciled kind.
	NewSet func() applyv1alpha1.Set
	// GroupKind is the reconciled kind.
	GroupKind schema.GroupKind
	// ToolingVersion is written into the tooling annotation: applyset-operator/<version>.
	ToolingVersion string
	// DefaultServiceAccount is impersonated when a set names none: namespace/name,
	// or empty to act as the operator itself (single-tenant mode).
	DefaultServiceAccount string

	clients sync.Map // impersonated user -> client.Client
}

// Reconcile makes the cluster match one set, or previews it.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (result reconcile.Result, retErr error) {
	started := time.Now()
	defer func() { setReconcileDuration.WithLabelValues(r.GroupKind.Kind).Observe(time.Since(started).Seconds()) }()
	set := r.NewSet()
	if err := r.Client.Get(ctx, req.NamespacedName, set); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	base := set.DeepCopyObject().(client.Object)
	defer func() {
		if equality.Semantic.DeepEqual(base.(applyv1alpha1.Set).GetSetStatus(), set.GetSetStatus()) {
			return // nothing new to report: a steady set costs no writes
		}
		if err := r.Client.Status().Patch(ctx, set, client.MergeFrom(base)); client.IgnoreNotFound(err) != nil {
			retErr = errors.Join(retErr, fmt.Errorf("patching status: %w", err))
		}
	}()

	if !set.GetDeletionTimestamp().IsZero() {
		return r.reconcileDelete(ctx, set)
	}
	if controllerutil.AddFinalizer(set, Finalizer) {
		if err := r.Client.Patch(ctx, set, client.MergeFrom(base)); err != nil {
			return reconcile.Result{}, fmt.Errorf("adding the finalizer: %w", err)
		}
		base = set.DeepCopyObject().(client.Object)
	}
	spec := set.GetCommonSpec()
	if spec.Suspended() {
		setStatus(set.GetSetStatus(), set.GetGeneration(), outcome{suspended: true})
		return reconcile.Result{}, nil
	}

	o := r.reconcileNormal(ctx, set)
	setStatus(set.GetSetStatus(), set.GetGeneration(), o)
	r.recordOutcome(set, o)
	recordMetrics(r.GroupKind.Kind, o)
	switch {
	case o.err != nil && o.terminal:
		log.FromContext(ctx).Info("Set cannot progress until it changes", "reason", o.reason, "error", o.err.Error())
		return reconcile.Result{}, nil
	case o.err != nil && o.reason == ReasonConflict:
		return reconcile.Result{RequeueAfter: requeue.Jitter(interval(spec))}, nil
	case o.err != nil:
		return reconcile.Result{}, o.err
	}
	return reconcile.Result{RequeueAfter: requeue.Jitter(interval(spec))}, nil
}

func (r *Reconciler) parentKey(set applyv1alpha1.Set) applyset.ParentKey {
	return applyset.ParentKey{GroupKind: r.GroupKind, Namespace: set.GetNamespace(), Name: set.GetName()}
}

// reconcileNormal runs the pipeline: check the parent, read and check the
// inputs, widen the hints, apply, prune, narrow the hints.
func (r *Reconciler) reconcileNormal(ctx context.Context, set applyv1alpha1.Set) outcome {
	spec := set.GetCommonSpec()
	key := r.parentKey(set)
	o := outcome{setID: key.ID(), dryRun: spec.DryRunEnabled()}
	parent := applyset.ParseParent(key, set.GetLabels(), set.GetAnnotations())
	if reason, err := checkParent(set, parent); err != nil {
		return failure(o, reason, true, err)
	}
	scope := applyset.Scope{Namespace: set.GetNamespace(), AdditionalNamespaces: sets.New(spec.AdditionalNamespaces...)}
	objects, reason, err := r.readObjects(ctx, set, scope)
	if err != nil {
		return failure(o, reason, true, err)
	}
	for _, obj := range objects {
		o.declared = append(o.declared, obj.Ref())
	}
	return r.applyAndPrune(ctx, set, parent, scope, objects, o)
}

// checkParent refuses a set whose ID label is not its own or that another tool manages.
func checkParent(set applyv1alpha1.Set, parent applyset.Parent) (string, error) {
	if id := set.GetLabels()[applyset.IDLabel]; id != "" && !parent.Trusted() {
		return ReasonIDMismatch, fmt.Errorf("the %s label is %s, not this set's ID %s; "+
			"remove the label to let the operator set it", applyset.IDLabel, id, parent.Key.ID())
	}
	if t := parent.Tooling; t.Name != "" && t.Name != ToolingName {
		return ReasonForeignTooling, fmt.Errorf("the set is managed by %s; the operator does not touch "+
			"another tool's set (remove the %s annotation to hand it over)", t, applyset.ToolingAnnotation)
	}
	return "", nil
}

// readObjects gathers, decodes and checks the declared objects.
func (r *Reconciler) readObjects(ctx context.Context, set applyv1alpha1.Set, scope applyset.Scope) ([]apply.Object, string, error) {
	inputs, err := gatherInputs(ctx, r.Reader, set)
	if errors.Is(err, errSourceNotFound) {
		return nil, ReasonSourceNotFound, err
	}
	if err != nil {
		return nil, ReasonInvalidInput, err
	}
	objects, err := apply.Check(inputs, apply.Target{Scope: scope, DefaultNamespace: set.GetNamespace(), Mapper: r.Mapper})
	if err != nil {
		return nil, ReasonInvalidInput, err
	}
	return objects, "", nil
}

// applyAndPrune follows kubectl's protocol: widen the hints before applying, so
// that an interrupted apply leaves no member outside them; apply; prune only
// when every apply succeeded; then narrow the hints to the new set.
func (r *Reconciler) applyAndPrune(ctx context.Context, set applyv1alpha1.Set, parent applyset.Parent,
	scope applyset.Scope, objects []apply.Object, o outcome) outcome {
	spec := set.GetCommonSpec()
	engine, err := r.engine(set)
	if err != nil {
		return failure(o, ReasonApplyFailed, false, err)
	}
	kinds, namespaces := declaredKindsAndNamespaces(objects, set.GetNamespace())
	hintKinds := kinds.Union(currentKinds(parent))
	if !o.dryRun {
		if err := r.writeParent(ctx, set, hintKinds, namespaces.Union(parent.Scope.AdditionalNamespaces)); err != nil {
			return failure(o, ReasonApplyFailed, false, err)
		}
	}

	o.applied, err = engine.Apply(ctx, objects, apply.Options{SetID: o.setID, DryRun: o.dryRun, Force: spec.ForceEnabled()})
	if err != nil {
		reason := ReasonApplyFailed
		if len(o.applied.Conflicts) > 0 {
			reason = ReasonConflict
		}
		return failure(o, reason, errors.Is(err, apply.ErrOverlap), err)
	}
	if !spec.PruneEnabled() {
		return o
	}
	o.pruned, err = engine.Prune(ctx, r.Mapper, apply.PruneTarget{
		SetID: o.setID, ParentUID: string(set.GetUID()), Scope: scope, Kinds: hintKinds,
		Keep: sets.New(o.declared...), DryRun: o.dryRun,
	})
	if err != nil {
		return failure(o, ReasonPruneFailed, false, err)
	}
	if !o.dryRun {
		if err := r.writeParent(ctx, set, kinds, namespaces); err != nil {
			return failure(o, ReasonApplyFailed, false, err)
		}
	}
	return o
}

func failure(o outcome, reason string, terminal bool, err error) outcome {
	o.reason, o.terminal, o.err = reason, terminal, err
	return o
}

func currentKinds(p applyset.Parent) sets.Set[schema.GroupKind] {
	if p.GroupKinds == nil {
		return sets.New[schema.GroupKind]()
	}
	return p.GroupKinds
}

func declaredKindsAndNamespaces(objects []apply.Object, own string) (sets.Set[schema.GroupKind], sets.Set[string]) {
	kinds, namespaces := sets.New[schema.GroupKind](), sets.New[string]()
	for _, o := range objects {
		kinds.Insert(o.Ref().GroupKind)
		if ns := o.Object.GetNamespace(); ns != "" && ns != own {
			namespaces.Insert(ns)
		}
	}
	return kinds, namespaces
}

// writeParent applies the ID label, the tooling annotation and the hints to the
// set itself, with server-side apply under the hints field manager.
func (r *Reconciler) writeParent(ctx context.Context, set applyv1alpha1.Set, kinds sets.Set[schema.GroupKind], namespaces sets.Set[string]) error {
	gvk, err := r.gvk()
	if err != nil {
		return err
	}
	patch := &unstructured.Unstructured{}
	patch.SetGroupVersionKind(gvk)
	patch.SetNamespace(set.GetNamespace())
	patch.SetName(set.GetName())
	patch.SetLabels(map[string]string{applyset.IDLabel: r.parentKey(set).ID()})
	patch.SetAnnotations(map[string]string{
		applyset.ToolingAnnotation:              applyset.Tooling{Name: ToolingName, Version: r.ToolingVersion}.String(),
		applyset.GroupKindsAnnotation:           applyset.FormatGroupKinds(kinds),
		applyset.AdditionalNamespacesAnnotation: applyset.FormatNamespaces(namespaces, set.GetNamespace()),
	})
	if hasAll(set.GetLabels(), patch.GetLabels()) && hasAll(set.GetAnnotations(), patch.GetAnnotations()) {
		return nil // already in place: a steady set costs no writes
	}
	if err := r.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(patch), client.FieldOwner(HintsFieldManager),
		client.ForceOwnership); err != nil {
		return fmt.Errorf("writing the parent's ID and hints: %w", err)
	}
	// Keep the in-memory copy in step, so the status patch does not undo it.
	labels, annotations := set.GetLabels(), set.GetAnnotations()
	if labels == nil {
		labels = map[string]string{}
	}
	if annotations == nil {
		annotations = map[string]string{}
	}
	for k, v := range patch.GetLabels() {
		labels[k] = v
	}
	for k, v := range patch.GetAnnotations() {
		annotations[k] = v
	}
	set.SetLabels(labels)
	set.SetAnnotations(annotations)
	return nil
}

func hasAll(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func (r *Reconciler) gvk() (schema.GroupVersionKind, error) {
	gvks, _, err := r.Scheme.ObjectKinds(r.NewSet())
	if err != nil || len(gvks) == 0 {
		return schema.GroupVersionKind{}, fmt.Errorf("the scheme does not know %s: %w", r.GroupKind, err)
	}
	return gvks[0], nil
}

// memberClient returns the client that reads and writes members: impersonating
// the set's service account, the default one, or the operator itself.
func (r *Reconciler) memberClient(set applyv1alpha1.Set) (client.Client, error) {
	defaultNS, defaultName, _ := strings.Cut(r.DefaultServiceAccount, "/")
	user := ""
	switch sa := set.GetCommonSpec().ServiceAccountName; {
	case sa != "" && set.GetNamespace() != "":
		user = serviceAccountUser(set.GetNamespace(), sa)
	case sa != "":
		// A cluster-scoped set's service account lives in the operator's namespace.
		user = serviceAccountUser(defaultNS, sa)
	case defaultName != "":
		user = serviceAccountUser(defaultNS, defaultName)
	}
	if user == "" {
		return r.Client, nil
	}
	if c, ok := r.clients.Load(user); ok {
		return c.(client.Client), nil
	}
	cfg := rest.CopyConfig(r.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	c, err := client.New(cfg, client.Options{Scheme: r.Scheme, Mapper: r.Mapper})
	if err != nil {
		return nil, fmt.Errorf("a client impersonating %s: %w", user, err)
	}
	r.clients.Store(user, c)
	return c, nil
}

// engine returns an apply engine acting as the set's identity, reading without a cache.
func (r *Reconciler) engine(set applyv1alpha1.Set) (*apply.Engine, error) {
	c, err := r.memberClient(set)
	if err != nil {
		return nil, err
	}
	var reader client.Reader = c // impersonating clients read live
	if c == r.Client {
		reader = r.Reader
	}
	return &apply.Engine{Client: c, Reader: reader, FieldManager: FieldManager}, nil
}

func serviceAccountUser(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

// reconcileDelete prunes every member (Delete) or disbands the set (Orphan),
// then lets the set go.
func (r *Reconciler) reconcileDelete(ctx context.Context, set applyv1alpha1.Set) (reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(set, Finalizer) {
		return reconcile.Result{}, nil
	}
	parent := applyset.ParseParent(r.parentKey(set), set.GetLabels(), set.GetAnnotations())
	if parent.Trusted() && (parent.Tooling.Name == ToolingName || parent.Tooling.Name == "") {
		if err := r.releaseMembers(ctx, set, parent); err != nil {
			setCondition(set.GetSetStatus(), set.GetGeneration(), applyv1alpha1.ConditionReady, metav1.ConditionFalse,
				ReasonDeletionBlocked, "Releasing the members before deletion failed: "+err.Error())
			return reconcile.Result{}, err
		}
	}
	base := set.DeepCopyObject().(client.Object)
	controllerutil.RemoveFinalizer(set, Finalizer)
	if err := r.Client.Patch(ctx, set, client.MergeFrom(base)); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	return reconcile.Result{}, nil
}

// releaseMembers deletes every member, or with deletionPolicy Orphan removes
// their part-of label, leaving them in place.
func (r *Reconciler) releaseMembers(ctx context.Context, set applyv1alpha1.Set, parent applyset.Parent) error {
	engine, err := r.engine(set)
	if err != nil {
		return err
	}
	spec := set.GetCommonSpec()
	if spec.DeletionPolicy == applyv1alpha1.DeletionPolicyOrphan {
		inputs, err := gatherInputs(ctx, r.Reader, set)
		if err != nil {
			return fmt.Errorf("reading the declared objects to disband them: %w", err)
		}
		objects, err := apply.Check(inputs, apply.Target{Scope: parent.Scope, DefaultNamespace: set.GetNamespace(), Mapper: r.Mapper})
		if err != nil {
			return fmt.Errorf("reading the declared objects to disband them: %w", err)
		}
		_, err = engine.Apply(ctx, objects, apply.Options{SetID: parent.ID, Disband: true})
		return err
	}
	_, err = engine.Prune(ctx, r.Mapper, apply.PruneTarget{
		SetID: parent.ID, ParentUID: string(set.GetUID()), Scope: parent.Scope, Kinds: currentKinds(parent),
		Keep: sets.New[apply.ObjectRef](),
	})
	return err
}

func (r *Reconciler) recordOutcome(set applyv1alpha1.Set, o outcome) {
	switch {
	case o.err != nil:
		r.Recorder.Eventf(set, nil, "Warning", o.reason, "Apply", "%s", truncate(o.err.Error()))
	case o.dryRun:
		// A preview changes nothing; status.plan tells the rest.
	case o.applied.Count(apply.Created)+o.applied.Count(apply.Configured)+o.pruned.Count(apply.Pruned) > 0:
		r.Recorder.Eventf(set, nil, "Normal", "Applied", "Apply", "%d created, %d configured, %d pruned",
			o.applied.Count(apply.Created), o.applied.Count(apply.Configured), o.pruned.Count(apply.Pruned))
	}
}

func truncate(s string) string {
	const most = 1000
	if len(s) > most {
		return s[:most-3] + "..."
	}
	return s
}

func interval(spec *applyv1alpha1.CommonSpec) time.Duration {
	if spec.Interval == nil || spec.Interval.Duration <= 0 {
		return 10 * time.Minute
	}
	return spec.Interval.Duration
}
