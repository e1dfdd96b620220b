/*
 * map_index.h - the map index of the 8-byte transfer by which the runtime
 * attaches the pointer of map entry i (a PTR_AND_OBJ entry: 'map(to:
 * s.v[0:N])' writes the device address of v's data into the device copy of
 * s): -2 - i, in the collector's spool and in data_op_raw.map_index alike
 * (-1 or NULL: no entry; docs/database.md).  Shared by the collector, the
 * database's readers and the report, which is why it lives here.
 */
#ifndef MAPPROF_LIB_MAP_INDEX_H
#define MAPPROF_LIB_MAP_INDEX_H

#define MAP_INDEX_ATTACH(i) (-2 - (i))
#define MAP_INDEX_IS_ATTACH(m) ((m) <= -2)
#define MAP_INDEX_ATTACH_ENTRY(m) (-2 - (m))

#endif
