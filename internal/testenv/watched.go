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
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// WatchedKubeconfig writes a kubeconfig into dir that reaches the API
// server through a plain HTTP proxy on loopback, which shows each request to
// seen before it forwards it as the cluster's administrator: a test counts
// what a command asks of the API server without changing the command. stop
// ends the proxy.
func (e *Env) WatchedKubeconfig(dir string, seen func(*http.Request)) (path string, stop func(), err error) {
	target, err := url.Parse(e.Config.Host)
	if err != nil {
		return "", nil, err
	}
	transport, err := rest.TransportFor(e.Config)
	if err != nil {
		return "", nil, err
	}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target) }, Transport: transport}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen(r)
		proxy.ServeHTTP(w, r)
	}))
	const name = "watched" // of the cluster, the user and the context
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: srv.URL}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	cfg.CurrentContext = name
	path = filepath.Join(dir, "watched-kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		srv.Close()
		return "", nil, err
	}
	return path, srv.Close, nil
}
