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

package testenv

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// AliasBomb is the "billion laughs" in YAML: nine levels of nine aliases
// each, 9^9 strings once expanded, followed by a valid object.
const AliasBomb = `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
apiVersion: v1
kind: ConfigMap
metadata: {name: laughs}
`

// EventReasons returns, for Eventually or a direct call, the type/reason
// (Warning/PruneSkipped) of every Event about the object named name.
func EventReasons(ctx context.Context, c client.Reader, namespace, name string) func() ([]string, error) {
	return func() ([]string, error) {
		list := &eventsv1.EventList{}
		if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
			return nil, err
		}
		var reasons []string
		for _, e := range list.Items {
			if e.Regarding.Name == name {
				reasons = append(reasons, e.Type+"/"+e.Reason)
			}
		}
		return reasons, nil
	}
}

// ConfigMapUIDs reads the UIDs of the ConfigMaps names in namespace.
func ConfigMapUIDs(ctx context.Context, c client.Reader, namespace string, names ...string) map[string]types.UID {
	ginkgo.GinkgoHelper()
	out := map[string]types.UID{}
	for _, name := range names {
		cm := &corev1.ConfigMap{}
		gomega.Expect(c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, cm)).To(gomega.Succeed())
		out[name] = cm.UID
	}
	return out
}

// PartOf reads the ApplySet part-of label of the ConfigMaps names in
// namespace, in their order.
func PartOf(ctx context.Context, c client.Reader, namespace string, names ...string) []string {
	ginkgo.GinkgoHelper()
	out := make([]string, 0, len(names))
	for _, name := range names {
		cm := &corev1.ConfigMap{}
		gomega.Expect(c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, cm)).To(gomega.Succeed())
		out = append(out, cm.Labels[applyset.PartOfLabel])
	}
	return out
}

// holdFinalizer is the finalizer Hold adds, as a controller holding an
// object would.
const holdFinalizer = "test.applyset.dev/hold"

// Hold adds holdFinalizer to obj, or takes it away; taking it from an
// object already gone needs nothing.
func Hold(ctx context.Context, c client.Client, obj client.Object, on bool) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			if on {
				return err
			}
			return client.IgnoreNotFound(err)
		}
		if on {
			controllerutil.AddFinalizer(obj, holdFinalizer)
		} else {
			controllerutil.RemoveFinalizer(obj, holdFinalizer)
		}
		return c.Update(ctx, obj)
	})
}
