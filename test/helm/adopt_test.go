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

package helm

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/kube"
	releasev1 "helm.sh/helm/v4/pkg/release/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

var _ = Describe("kubectl applyset adopt --from helm/RELEASE", func() {
	It("adopts the latest deployed revision's manifest of a release Helm installed, and kubectl's next apply --applyset prunes exactly what it no longer declares", func(ctx context.Context) {
		ns, other := namespace(ctx), namespace(ctx)
		chart, err := loader.Load("testdata/web")
		Expect(err).NotTo(HaveOccurred())
		cfg := helmConfig(ns)

		By("installing the chart with Helm's SDK, then upgrading it to a second revision")
		install := action.NewInstall(cfg)
		install.ReleaseName, install.Namespace, install.WaitStrategy = "web", ns, kube.HookOnlyStrategy
		_, err = install.RunWithContext(ctx, chart, map[string]any{"otherNamespace": other})
		Expect(err).NotTo(HaveOccurred())
		upgrade := action.NewUpgrade(cfg)
		upgrade.Namespace, upgrade.WaitStrategy = ns, kube.HookOnlyStrategy
		_, err = upgrade.RunWithContext(ctx, "web", chart, map[string]any{"otherNamespace": other, "extra": true})
		Expect(err).NotTo(HaveOccurred())
		before := testenv.ConfigMapUIDs(ctx, env.Client, ns, "web-a", "web-b", "web-c", "web-hook")
		elsewhere := testenv.ConfigMapUIDs(ctx, env.Client, other, "web-elsewhere")
		deployment := &appsv1.Deployment{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, deployment)).To(Succeed())

		By("refusing a namespaced parent: kubectl could not apply the object of the other namespace with it")
		out, err := plugin(ctx, "adopt", "secret/web", "-n", ns, "--from", "helm/web", "--yes")
		Expect(err).To(HaveOccurred(), out)
		Expect(out).To(ContainSubstring("ConfigMap " + other + "/web-elsewhere: it is in namespace " + other +
			": kubectl applies a set whose parent is namespaced only with -n " + ns))
		Expect(testenv.PartOf(ctx, env.Client, ns, "web-a")).To(Equal([]string{""}), "a refused adoption labelled an object")

		By("previewing, then adopting into a cluster-scoped parent")
		parentType := testenv.OpenCRD("example.com", "Release")
		parentType.Spec.Scope = apiextensionsv1.ClusterScoped
		parentType.Labels = map[string]string{applyset.ParentTypeLabel: "true"}
		Expect(env.Client.Create(ctx, parentType)).To(Succeed())
		id := applyset.ParentKey{GroupKind: schema.GroupKind{Group: "example.com", Kind: "Release"}, Name: "web"}.ID()
		Eventually(func() error { // the CRD is served a little after it is created
			out, err = plugin(ctx, "adopt", "releases.example.com/web", "-n", ns, "--from", "helm/web", "--dry-run=server")
			return err
		}).Should(Succeed())
		Expect(testenv.PartOf(ctx, env.Client, ns, "web-a")).To(Equal([]string{""}), "a dry run labelled an object")
		out, err = plugin(ctx, "adopt", "releases.example.com/web", "-n", ns, "--from", "helm/web", "--yes")
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(ContainSubstring("adopting the objects of revision 2's manifest (helm get manifest web -n " + ns + ")"))
		Expect(out).To(ContainSubstring("helm uninstall web deletes these objects, --keep-history or not"))
		Expect(out).To(ContainSubstring("kubectl delete secret -n " + ns + " -l name=web,owner=helm"))
		Expect(out).To(ContainSubstring("helm (Apply)"), "the plan shows Helm's server-side apply as a manager")
		Expect(out).To(ContainSubstring("5 objects adopted"))
		Expect(testenv.PartOf(ctx, env.Client, ns, "web-a", "web-b", "web-c", "web-hook")).To(Equal([]string{id, id, id, ""}), "a hook is not in the manifest")
		Expect(testenv.PartOf(ctx, env.Client, other, "web-elsewhere")).To(Equal([]string{id}))
		adopted := &appsv1.Deployment{}
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(deployment), adopted)).To(Succeed())
		Expect(adopted.Labels).To(HaveKeyWithValue(applyset.PartOfLabel, id))
		Expect(adopted.UID).To(Equal(deployment.UID))
		Expect(adopted.Generation).To(Equal(deployment.Generation))
		Expect(adopted.ManagedFields).NotTo(ContainElement(HaveField("Manager", "helm")), "Helm's apply entry was not handed over")
		a := &corev1.ConfigMap{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-a"}, a)).To(Succeed())
		Expect(a.ManagedFields).To(ConsistOf(HaveField("Manager", "kubectl")), "Helm's apply entry and the label's are kubectl's now")
		Expect(a.ManagedFields[0].FieldsV1.GetRawString()).To(ContainSubstring(`"f:drop"`))
		Expect(a.Labels).To(HaveKeyWithValue("app.kubernetes.io/managed-by", "Helm"))

		By("applying Helm's manifest with kubectl --applyset, without web-b and without web-a's key drop")
		get, err := action.NewGet(cfg).Run("web")
		Expect(err).NotTo(HaveOccurred())
		rel, ok := get.(*releasev1.Release)
		Expect(ok).To(BeTrue(), "Helm returned a %T", get)
		var kept []string
		for _, doc := range strings.Split(rel.Manifest, "\n---") {
			if !strings.Contains(doc, "name: web-b\n") {
				kept = append(kept, strings.Replace(doc, "  drop: x\n", "", 1))
			}
		}
		Expect(kept).To(HaveLen(4))
		// kubectl refuses -n with objects of other namespaces: the objects the
		// manifest gives no namespace are in the context's.
		applied := kubectlInContext(ctx, ns, strings.Join(kept, "\n---"), "apply", "--server-side", "--prune", "--applyset=releases.example.com/web", "-f", "-")
		Expect(applied).To(ContainSubstring("configmap/web-b pruned"))
		Expect(strings.Count(applied, "pruned")).To(Equal(1), applied)
		Expect(apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-b"}, &corev1.ConfigMap{}))).To(BeTrue())
		delete(before, "web-b")
		Expect(testenv.ConfigMapUIDs(ctx, env.Client, ns, "web-a", "web-c", "web-hook")).To(Equal(before), "an object was recreated")
		Expect(testenv.ConfigMapUIDs(ctx, env.Client, other, "web-elsewhere")).To(Equal(elsewhere))
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-a"}, a)).To(Succeed())
		Expect(a.Data).To(Equal(map[string]string{"k": "v"}), "a field kubectl no longer declares stayed")
		Expect(a.Labels).NotTo(HaveKey("app.kubernetes.io/managed-by"), "Helm's label stayed, owned by nobody that applies")
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(deployment), adopted)).To(Succeed())
		Expect(adopted.UID).To(Equal(deployment.UID))
	})
})

// helmConfig is Helm's configuration for a release in ns, stored as Helm's
// CLI stores it by default: in Secrets, with its field manager "helm".
func helmConfig(ns string) *action.Configuration {
	GinkgoHelper()
	kube.ManagedFieldsManager = "helm"
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig, flags.Namespace = &env.Kubeconfig, &ns
	cfg := action.NewConfiguration()
	Expect(cfg.Init(flags, ns, "secret")).To(Succeed())
	return cfg
}

// kubectlInContext runs kubectl with a kubeconfig whose context's namespace
// is ns, and returns its output.
func kubectlInContext(ctx context.Context, ns, stdin string, args ...string) string {
	GinkgoHelper()
	data, err := os.ReadFile(env.Kubeconfig)
	Expect(err).NotTo(HaveOccurred())
	kubeconfig := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(os.WriteFile(kubeconfig, data, 0o600)).To(Succeed())
	run := func(stdin string, args ...string) string {
		cmd := exec.CommandContext(ctx, env.KubectlPath(), append([]string{"--kubeconfig", kubeconfig}, args...)...)
		cmd.Env = append(os.Environ(), "KUBECTL_APPLYSET=true")
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		return string(out)
	}
	run("", "config", "set-context", "--current", "--namespace="+ns)
	return run(stdin, args...)
}

// plugin runs kubectl applyset in this process, as kubectl runs it.
func plugin(ctx context.Context, args ...string) (string, error) {
	var out bytes.Buffer
	cmd := applysetcli.NewCommand(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out})
	cmd.SetArgs(append(args, "--kubeconfig", env.Kubeconfig))
	err := cmd.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintf(&out, "error: %v\n", err) // as the plugin's main prints it
	}
	GinkgoWriter.Printf("kubectl applyset %s:\n%s\n", strings.Join(args, " "), out.String())
	return out.String(), err
}

func namespace(ctx context.Context) string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "helm-"}}
	Expect(env.Client.Create(ctx, ns)).To(Succeed())
	return ns.Name
}
