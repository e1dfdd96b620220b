# normalize.jq - the parts of report.json that must not change between two
# recordings of the same sample on the same toolchain.  Input: report.json;
# $unordered: true for samples whose threads race.
def strip:
  walk(if type == "object" then
         with_entries(select(.key | (endswith("_ns") or . == "predicted_speedup"
                                     or . == "address" or . == "runtime") | not))
       else . end);
strip
| .run.command |= (if length > 0 then .[0] |= sub(".*/"; "") else . end)
# Plans come by savings (times): compare them in the order of their directive.
| .plans |= sort_by(.directive.file, .directive.line, .directive.offset)
# Kernels come by time too.
| if has("kernels") then .kernels |= sort_by(.location.file, .location.line, .location.offset, .device) else . end
| if $unordered then
    .findings |= (map(del(.id, .events)) | sort_by(.kind, .fingerprint))
    | .plans |= map(del(.findings))
  else . end
