{{- define "catalog.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "catalog.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "catalog.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "catalog.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "catalog.secret" -}}
{{- required "existingSecret is required: a Secret holding <SERVICE>_DATABASE_URL, MIGRATION_DATABASE_URL, <SERVICE>_NATS_PASSWORD, CALL_CONTEXT_SECRET, ADMIN_TOKEN, … (see values.yaml)" .Values.existingSecret -}}
{{- end -}}

{{- define "catalog.assetUrl" -}}
{{- printf "http://%s-asset:%v" (include "catalog.fullname" .) .Values.services.asset.port -}}
{{- end -}}

{{/* The origin clients upload to with the s3 backend (path-style URLs of the public endpoint, decision 0145). */}}
{{- define "catalog.s3PublicOrigin" -}}
{{- $url := urlParse (default .Values.blob.s3.endpoint .Values.blob.s3.publicEndpoint) -}}
{{- printf "%s://%s" $url.scheme $url.host -}}
{{- end -}}

{{/* A variable of the shared Secret. */}}
{{- define "catalog.secretEnv" -}}
- name: {{ .key }}
  valueFrom:
    secretKeyRef:
      name: {{ include "catalog.secret" .root }}
      key: {{ .key }}
      {{- if .optional }}
      optional: true
      {{- end }}
{{- end -}}

{{/* Proxies trusted in front of the gateway: services.gateway.trustProxyHops, else 1 behind the chart's ingress, else 0. */}}
{{- define "catalog.trustProxyHops" -}}
{{- $hops := .Values.services.gateway.trustProxyHops -}}
{{- if kindIs "invalid" $hops -}}
{{- ternary 1 0 .Values.ingress.enabled -}}
{{- else -}}
{{- $hops | int -}}
{{- end -}}
{{- end -}}

{{/* Egress to the cluster's DNS. */}}
{{- define "catalog.egressDns" -}}
- ports: [{ port: 53, protocol: UDP }, { port: 53, protocol: TCP }]
  {{- with .Values.networkPolicy.dnsTo }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}

{{/* Egress on .ports (TCP) to the peers .to (any address when empty). */}}
{{- define "catalog.egressTo" -}}
- ports:
    {{- range .ports }}
    - { port: {{ . }}, protocol: TCP }
    {{- end }}
  {{- with .to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}

{{/* Topology spread of the pods of component .name over zones and nodes (topologySpread values). */}}
{{- define "catalog.spread" -}}
{{- if .root.Values.topologySpread.enabled -}}
topologySpreadConstraints:
  {{- range $key := .root.Values.topologySpread.topologyKeys }}
  - maxSkew: {{ $.root.Values.topologySpread.maxSkew }}
    topologyKey: {{ $key }}
    whenUnsatisfiable: {{ $.root.Values.topologySpread.whenUnsatisfiable }}
    labelSelector:
      matchLabels:
        {{- include "catalog.selector" (dict "root" $.root "name" $.name) | nindent 8 }}
  {{- end }}
{{- end -}}
{{- end -}}

{{/* Replicas of the JetStream streams (JETSTREAM_REPLICAS): nats.streamReplicas, else 3 with the in-chart NATS (at most its servers), else 1. */}}
{{- define "catalog.streamReplicas" -}}
{{- if not (kindIs "invalid" .Values.nats.streamReplicas) -}}
{{- .Values.nats.streamReplicas | int -}}
{{- else if .Values.inChart.nats.enabled -}}
{{- min 3 (.Values.inChart.nats.replicas | int) -}}
{{- else -}}
1
{{- end -}}
{{- end -}}

{{/* The NATS URL of the services: the in-chart cluster's Service, else nats.url. */}}
{{- define "catalog.natsUrl" -}}
{{- if .Values.inChart.nats.enabled -}}
{{- printf "nats://%s-nats:4222" (include "catalog.fullname" .) -}}
{{- else -}}
{{- .Values.nats.url -}}
{{- end -}}
{{- end -}}
