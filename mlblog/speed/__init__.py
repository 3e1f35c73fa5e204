"""The build's shortcuts: each changes no output, each has its switch in the plugin's ``speed``
settings, and each stays only while benchmarks/ablation-report.md shows it pays. They reach into
MkDocs' and Material's internals (listed in contracts.DETAILS)."""
