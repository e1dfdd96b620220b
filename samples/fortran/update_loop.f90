! update_loop.f90 - a Fortran OpenMP offload program (flang) that maps
! 'a' once in a target data region, runs a target region per step, and
! brings 'b' back with target update after each: what mapprof records of
! a Fortran program (docs/openacc.md, "Fortran").  flang-19 builds it for
! nvptx64 (--offload-arch=sm_90); its x86_64 host offload does not link.
module field
  implicit none
  integer, parameter :: n = 4096
contains
  subroutine step(a, b, s)
    real(8), intent(in) :: a(n)
    real(8), intent(inout) :: b(n)
    integer, intent(in) :: s
    integer :: i
    !$omp target map(to: s)
    do i = 1, n
      b(i) = a(i) * s
    end do
    !$omp end target
  end subroutine step
end module field

program update_loop
  use field
  implicit none
  real(8), allocatable :: a(:), b(:)
  real(8) :: total
  integer :: i, s

  allocate(a(n), b(n))
  a = [(real(i, 8), i = 1, n)]
  b = 0
  total = 0
  !$omp target data map(to: a) map(alloc: b)
  do s = 1, 4
    call step(a, b, s)
    !$omp target update from(b)
    total = total + b(n)
  end do
  !$omp target enter data map(to: total)
  !$omp target exit data map(release: total)
  !$omp end target data
  print '(f0.1)', total
end program update_loop
