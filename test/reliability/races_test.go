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

package reliability

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/inventory"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// The race hunt: two operators reconcile the same sets at once, as two
// shards do while a set moves between them, or a replica taking a set over
// while the other finishes, each through a fault injector that delays what
// its watches deliver (its cache lags) and loses the answers of writes the
// API server made; one of them is restarted now and then (its memory of
// its own writes gone), the API server too, while the sets' sources change
// over and over. A set of more than four members keeps its record in
// chunks of two, so that chunks are written, committed and collected all
// the time. After the last change, each set must settle with the objects
// that carry its label exactly its last declaration, and its record naming
// exactly those, by UID. RELIABILITY_RACE_SEEDS runs that many
// seeds (the suite's seed, then the next ones) of RELIABILITY_RACE_SECONDS
// of churn each.
var _ = Describe("Two operators racing on the same sets, through faults", func() {
	It("leave each set's labelled objects its last declaration, and its record naming exactly them", func(ctx context.Context) {
		seeds, seconds := envInt("RELIABILITY_RACE_SEEDS", 2), envInt("RELIABILITY_RACE_SECONDS", 15)
		var failed []string
		for i := range seeds {
			seed := uint64(GinkgoRandomSeed()) + uint64(i)
			if wrong := raceHunt(ctx, seed, time.Duration(seconds)*time.Second); wrong != "" {
				failed = append(failed, fmt.Sprintf("seed %d: %s", seed, wrong))
			}
		}
		Expect(failed).To(BeEmpty())
	})
})

// raceSets is how many sets a hunt runs; raceWindow how many ConfigMaps
// each may declare at once.
const (
	raceSets   = 4
	raceWindow = 8
)

// raceHunt runs one seed and says what was wrong at its end ("" for nothing).
func raceHunt(ctx context.Context, seed uint64, churn time.Duration) string {
	GinkgoHelper()
	rng := rand.New(rand.NewPCG(seed, 0))
	ns := tenantNamespace(ctx)
	sets := make([]*applyv1alpha1.ApplySet, raceSets)
	declared, first := make([][]string, raceSets), make([]int, raceSets)
	for i := range sets {
		declared[i] = pick(rng, &first[i])
		Expect(k8sClient.Create(ctx, raceSource(ns, i, declared[i]))).To(Succeed())
		sets[i] = &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("race-%d", i)}}
		sets[i].Spec.Sources = []applyv1alpha1.Source{{Kind: applyv1alpha1.SourceKindConfigMap, Name: fmt.Sprintf("source-%d", i)}}
		sets[i].Spec.AllowEmpty = ptr.To(true)
		sets[i].Spec.Interval = &metav1.Duration{Duration: 5 * time.Second}
	}

	faults := [2]*testenv.Faults{testenv.NewFaults(seed), testenv.NewFaults(seed + 1<<32)}
	var operators [2]*racer
	for i, f := range faults {
		f.WatchLag, f.WriteLag, f.LostAnswers, f.Matches = 300*time.Millisecond, 200*time.Millisecond, 0.05, ofNamespace(ns)
		operators[i] = startRacer(f)
	}
	defer func() {
		for _, op := range operators {
			op.stop()
		}
	}()
	for _, set := range sets {
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
	}

	restarts, apiRestarts, changes := 0, 0, 0
	for end := time.Now().Add(churn); time.Now().Before(end); {
		time.Sleep(time.Duration(20+rng.IntN(200)) * time.Millisecond)
		switch draw := rng.IntN(200); {
		case draw < 4 && time.Since(operators[0].started) > 3*time.Second:
			operators[0].stop()
			operators[0] = startRacer(faults[0])
			restarts++
		case draw < 5:
			Expect(env.StopAPIServer()).To(Succeed())
			Expect(env.StartAPIServer()).To(Succeed())
			apiRestarts++
		default:
			i := rng.IntN(raceSets)
			declared[i] = pick(rng, &first[i])
			Eventually(func() error { return changeSource(ctx, ns, i, declared[i]) }).Should(Succeed())
			changes++
		}
	}

	// Settled: as declared, and so for 5 s on end (a late run of the
	// operator whose watches lag may still change a set for a moment). What
	// is still wrong after 3 minutes is told below, with the seed.
	var since time.Time
	_ = InterceptGomegaFailures(func() {
		Eventually(func() bool {
			for i, set := range sets {
				if len(raceFindings(ctx, set, declared[i])) > 0 {
					since = time.Time{}
					return false
				}
			}
			if since.IsZero() {
				since = time.Now()
			}
			return time.Since(since) >= 5*time.Second
		}).WithTimeout(3 * time.Minute).WithPolling(time.Second).Should(BeTrue())
	})
	wrong := ""
	for i, set := range sets {
		if findings := raceFindings(ctx, set, declared[i]); len(findings) > 0 {
			wrong += fmt.Sprintf("%s: %s; ", set.Name, strings.Join(findings, "; "))
		}
	}
	failedStarts := operators[0].restarts.Load() + operators[1].restarts.Load()
	AddReportEntry(fmt.Sprintf("race hunt, seed %d", seed), fmt.Sprintf(
		"%s of churn: %d source changes, %d operator restarts (and %d after a start that failed), %d API server restarts; "+
			"watch reads held %d and %d, write answers lost %d and %d; %s",
		churn, changes, restarts, failedStarts, apiRestarts, faults[0].Held(), faults[1].Held(), faults[0].Lost(), faults[1].Lost(),
		cmpOr(wrong, "settled as declared")))
	suspendSets(ctx, ns)
	return wrong
}

func cmpOr(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

// racer is an operator of the race hunt, whose requests go through
// faults; one that ends by itself (its start failing while the API server
// restarts) is started again, as a kubelet would.
type racer struct {
	started  time.Time
	stop     func()
	restarts *atomic.Int64
}

func startRacer(f *testenv.Faults) *racer {
	stop, restarts := env.Supervise(f.Wrap(env.Config), func(mgr ctrl.Manager) error {
		return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: "v0.1.0", DefaultServiceAccount: "default",
			MinInterval: time.Second, InventoryLayout: inventory.Layout{Inline: 4, PerChunk: 2}})
	})
	return &racer{started: time.Now(), stop: stop, restarts: restarts}
}

// ofNamespace matches the requests about ns, and the watches of the whole
// cluster that carry its objects.
func ofNamespace(ns string) func(*http.Request) bool {
	return func(req *http.Request) bool {
		return strings.Contains(req.URL.Path, "/namespaces/"+ns+"/") || req.URL.Query().Get("watch") == "true"
	}
}

// pick draws the names a set declares: any of the raceWindow names from
// *first on, none included, after it moved *first on by two to eight. A
// name left behind is never declared again, so a member lost from the
// record is seldom healed by an apply of it, and stays to be found.
func pick(rng *rand.Rand, first *int) []string {
	*first += 2 + rng.IntN(7)
	var names []string
	for i := range raceWindow {
		if rng.IntN(2) == 0 {
			names = append(names, fmt.Sprintf("m%d", *first+i))
		}
	}
	return names
}

func raceSource(ns string, i int, names []string) *corev1.ConfigMap {
	var b strings.Builder
	for _, name := range names {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s-%d}\ndata: {set: %q}\n", name, i, fmt.Sprint(i))
	}
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("source-%d", i)},
		Data: map[string]string{"objects.yaml": b.String()}}
}

func changeSource(ctx context.Context, ns string, i int, names []string) error {
	source := raceSource(ns, i, names)
	current := &corev1.ConfigMap{}
	if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(source), current); err != nil {
		return err
	}
	current.Data = source.Data
	return k8sClient.Update(ctx, current)
}

// raceFindings says how set differs from what it declares: objects carrying
// its label that it does not declare, declared ones without it, and
// records of objects that do not carry it (or not under that UID), or of
// none that do.
func raceFindings(ctx context.Context, set *applyv1alpha1.ApplySet, names []string) []string {
	GinkgoHelper()
	id := applyset.ParentKey{GroupKind: applyv1alpha1.GroupVersion.WithKind("ApplySet").GroupKind(), Namespace: set.Namespace, Name: set.Name}.ID()
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMapList"))
	Expect(k8sClient.List(ctx, list, client.InNamespace(set.Namespace), client.MatchingLabels{applyset.PartOfLabel: id})).To(Succeed())
	labelled := map[string]types.UID{}
	for _, item := range list.Items {
		labelled[item.Name] = item.UID
	}
	current := &applyv1alpha1.ApplySet{}
	Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), current)).To(Succeed())
	recorded, err := recordedUIDs(ctx, current)
	if err != nil {
		return []string{"the record cannot be read: " + err.Error()}
	}
	suffix := strings.TrimPrefix(set.Name, "race")
	want := map[string]bool{}
	for _, name := range names {
		want[name+suffix] = true
	}
	var findings []string
	for _, name := range slices.Sorted(maps.Keys(labelled)) {
		if !want[name] {
			findings = append(findings, "labelled but not declared: "+name)
		}
		if recorded[name] != labelled[name] {
			findings = append(findings, fmt.Sprintf("labelled %s as %s, recorded as %q", name, labelled[name], recorded[name]))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if _, ok := labelled[name]; !ok {
			findings = append(findings, "declared but not labelled: "+name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(recorded)) {
		if _, ok := labelled[name]; !ok {
			findings = append(findings, "recorded but not labelled: "+name)
		}
	}
	return findings
}
