{
  "targets": [
    {
      "target_name": "onewrite",
      "sources": ["binding.c", "head.c"],
      "cflags": ["-std=c11", "-O3", "-Wall", "-Wextra"],
      "defines": ["NAPI_VERSION=8"]
    }
  ]
}
