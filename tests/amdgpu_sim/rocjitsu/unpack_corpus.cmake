# cmake -DCORPUS=<corpus.tar.xz> -DOUT=<folder> -P unpack_corpus.cmake: OUT holds exactly the archive's files (a
# launch of an older corpus left in it would be replayed too).
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
file(ARCHIVE_EXTRACT INPUT ${CORPUS} DESTINATION ${OUT})
