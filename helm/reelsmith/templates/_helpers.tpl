{{- define "reelsmith.envName" -}}{{ . | upper | replace "-" "_" }}{{- end -}}
{{- define "reelsmith.labels" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/part-of: reelsmith
{{- end -}}
