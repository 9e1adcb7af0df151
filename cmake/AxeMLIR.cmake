#===- AxeMLIR.cmake - helpers for axe-mlir libraries -----------------------===#
#
# Every axe library is recorded in the global property AXE_ALL_LIBS so that
# tools and the installed package can link "all of axe" without lists that go
# stale. Libraries that use MLIR IR link Debian's libMLIR.so (one shared copy
# of MLIR, fast links, no duplicate option registration).

# add_axe_library(name SOURCES... [DEPENDS targets...] [LINK_LIBS libs...])
function(add_axe_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${AXE_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${AXE_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  if(ARG_LINK_LIBS)
    target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS})
  endif()
  set_property(GLOBAL APPEND PROPERTY AXE_ALL_LIBS ${name})
  install(TARGETS ${name} EXPORT AxeMLIRTargets
    ARCHIVE DESTINATION lib LIBRARY DESTINATION lib)
endfunction()
