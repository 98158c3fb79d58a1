# The ros-* PyPI wheels export CMake targets whose INTERFACE_INCLUDE_DIRECTORIES
# still name /opt/python/cp311-cp311/... from the machine that built the wheels;
# CMake's generate step rejects include paths that do not exist. This hook runs
# at the end of configuring and strips those paths from every imported target,
# without touching the package's own CMakeLists.txt.
function(_pypi_ros_strip_opt_python)
  get_directory_property(_imported DIRECTORY "${CMAKE_SOURCE_DIR}" IMPORTED_TARGETS)
  foreach(_target IN LISTS _imported)
    get_target_property(_includes ${_target} INTERFACE_INCLUDE_DIRECTORIES)
    if(_includes)
      list(FILTER _includes EXCLUDE REGEX "^/opt/python/")
      set_target_properties(${_target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_includes}")
    endif()
  endforeach()
endfunction()
if(CMAKE_CURRENT_SOURCE_DIR STREQUAL CMAKE_SOURCE_DIR)
  cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _pypi_ros_strip_opt_python)
endif()
