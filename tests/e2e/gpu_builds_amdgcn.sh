#!/usr/bin/env bash
# gpu_builds_amdgcn.sh - gpu_builds.sh for amdgcn-amd-amdhsa (gfx90a): a
# test of its own, so that a skip of one GPU target is counted apart from
# the other's result.
GPU_BUILDS_TARGET=amdgcn-amd-amdhsa exec bash "$(dirname "$0")/gpu_builds.sh"
