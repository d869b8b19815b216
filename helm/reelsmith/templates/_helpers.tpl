{{/* Release-wide name: the release name, or "<release>-reelsmith" when it does not say reelsmith. */}}
{{- define "reelsmith.fullname" -}}
{{- if contains "reelsmith" .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-reelsmith" .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* media-library -> MEDIA_LIBRARY */}}
{{- define "reelsmith.envName" -}}{{ . | upper | replace "-" "_" }}{{- end -}}

{{/* Name of one service's objects: <fullname>-<service>. ctx: dict root name */}}
{{- define "reelsmith.name" -}}{{ include "reelsmith.fullname" .root }}-{{ .name }}{{- end -}}

{{- define "reelsmith.selectorLabels" -}}
app.kubernetes.io/name: reelsmith
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "reelsmith.labels" -}}
{{ include "reelsmith.selectorLabels" . }}
app.kubernetes.io/part-of: reelsmith
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end -}}

{{/* Every pod of this release (services and migration Jobs). */}}
{{- define "reelsmith.releaseSelector" -}}
app.kubernetes.io/name: reelsmith
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* image reference of a service. ctx: dict root svc */}}
{{- define "reelsmith.image" -}}
{{- $img := index .root.Values.images .svc.image -}}
{{- if $img.digest -}}{{ $img.repository }}@{{ $img.digest }}{{- else -}}{{ $img.repository }}:{{ $img.tag }}{{- end -}}
{{- end -}}

{{/* The RENDER stream's name as the bus declares it: the NATS prefix, dots made underscores. */}}
{{- define "reelsmith.renderStream" -}}{{ regexReplaceAll "[^A-Za-z0-9_-]" .Values.nats.prefix "_" }}RENDER{{- end -}}

{{/*
Plain settings of one service as a YAML map of strings: the shared config, ports, NATS, peers'
addresses, storage, then the service's own env (which wins). ConfigMap data and, inline, the
migration Job's env. ctx: dict root name svc
*/}}
{{- define "reelsmith.serviceConfig" -}}
{{- $root := .root -}}
{{- $v := $root.Values -}}
{{- $out := dict -}}
{{- range $k, $val := $v.config }}{{ $_ := set $out $k (toString $val) }}{{ end -}}
{{- $_ := set $out "NATS_URL" $v.nats.url -}}
{{- $_ := set $out "NATS_PREFIX" $v.nats.prefix -}}
{{- $_ := set $out "GRPC_HOST" "0.0.0.0" -}}
{{- $_ := set $out "GRPC_PORT" (toString $v.ports.grpc) -}}
{{- $_ := set $out "OPS_PORT" (toString $v.ports.ops) -}}
{{- $_ := set $out "DATA_DIR" "/tmp/reelsmith" -}}
{{- $_ := set $out "SHUTDOWN_TIMEOUT_MS" (toString (mul (sub (sub .svc.terminationGracePeriodSeconds .svc.preStopSleepSeconds) 5) 1000)) -}}
{{- range $peer, $_ := $v.services -}}
{{- if ne $peer $.name -}}
{{- $_ := set $out (printf "%s_GRPC_ADDR" (include "reelsmith.envName" $peer)) (printf "%s:%v" (include "reelsmith.name" (dict "root" $root "name" $peer)) $v.ports.grpc) -}}
{{- end -}}
{{- end -}}
{{- if .svc.storage -}}
{{- $_ := set $out "STORAGE_DRIVER" "s3" -}}
{{- $_ := set $out "S3_ENDPOINT" $v.s3.endpoint -}}
{{- $_ := set $out "S3_REGION" $v.s3.region -}}
{{- $_ := set $out "S3_BUCKET" $v.s3.bucket -}}
{{- $_ := set $out "S3_FORCE_PATH_STYLE" (toString $v.s3.forcePathStyle) -}}
{{- end -}}
{{- if eq .name "gateway" -}}
{{- $_ := set $out "PORT" (toString $v.ports.http) -}}
{{- $_ := set $out "HOST" "0.0.0.0" -}}
{{- end -}}
{{- if .svc.scratch -}}
{{- $_ := set $out "WORK_DIR" "/scratch" -}}
{{- end -}}
{{- range $k, $val := .svc.env }}{{ $_ := set $out $k (toString $val) }}{{ end -}}
{{- toYaml $out -}}
{{- end -}}

{{/* env entries read from Secrets for one service. ctx: dict root name svc */}}
{{- define "reelsmith.secretEnv" -}}
{{- $v := .root.Values -}}
- name: INTERNAL_TOKEN
  valueFrom: { secretKeyRef: { name: {{ $v.secrets.existingSecret }}, key: INTERNAL_TOKEN } }
- name: DATABASE_URL
  valueFrom: { secretKeyRef: { name: {{ $v.database.existingSecret }}, key: {{ include "reelsmith.envName" .name }}_DATABASE_URL } }
{{- if eq $v.nats.auth.type "token" }}
- name: NATS_TOKEN
  valueFrom: { secretKeyRef: { name: {{ $v.nats.auth.existingSecret }}, key: {{ $v.nats.auth.tokenKey }} } }
{{- else if eq $v.nats.auth.type "userPassword" }}
- name: NATS_USER
  valueFrom: { secretKeyRef: { name: {{ $v.nats.auth.existingSecret }}, key: {{ $v.nats.auth.userKey }} } }
- name: NATS_PASSWORD
  valueFrom: { secretKeyRef: { name: {{ $v.nats.auth.existingSecret }}, key: {{ $v.nats.auth.passwordKey }} } }
{{- end }}
{{- if eq .name "identity" }}
- name: TOKEN_SECRET
  valueFrom: { secretKeyRef: { name: {{ $v.secrets.existingSecret }}, key: TOKEN_SECRET } }
{{- end }}
{{- if .svc.storage }}
- name: S3_ACCESS_KEY_ID
  valueFrom: { secretKeyRef: { name: {{ $v.s3.existingSecret }}, key: {{ $v.s3.accessKeyIdKey }} } }
- name: S3_SECRET_ACCESS_KEY
  valueFrom: { secretKeyRef: { name: {{ $v.s3.existingSecret }}, key: {{ $v.s3.secretAccessKeyKey }} } }
- name: SIGNING_SECRET
  valueFrom: { secretKeyRef: { name: {{ $v.secrets.existingSecret }}, key: SIGNING_SECRET, optional: true } }
{{- end }}
{{- range $v.secretEnv }}
{{- if or (has $.name .services) (has "*" .services) }}
- name: {{ .name }}
  valueFrom: { secretKeyRef: { name: {{ .secret | default $v.secrets.existingSecret }}, key: {{ .key }}, optional: {{ .optional | default false }} } }
{{- end }}
{{- end }}
{{- end -}}

{{/* Pod-level settings shared by services and Jobs. */}}
{{- define "reelsmith.podCommon" -}}
automountServiceAccountToken: false
enableServiceLinks: false
securityContext: {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets: {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector: {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations: {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
