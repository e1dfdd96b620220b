! update_loop_f.f90 - update_loop.c in Fortran (gfortran -fopenacc): 'a'
! copied in once, 'b' brought back to the host after every step.  Without a
! GPU (host fallback) libgomp reports the constructs and no transfer
! (docs/openacc.md).
program update_loop_f
  implicit none
  integer, parameter :: n = 4096, steps = 4
  real(8), allocatable :: a(:), b(:)
  real(8) :: total
  integer :: i, s

  allocate(a(n), b(n))
  a = [(real(i, 8), i = 1, n)]
  total = 0
  !$acc enter data copyin(a) create(b)
  do s = 1, steps
    !$acc parallel loop present(a, b)
    do i = 1, n
      b(i) = a(i) * s
    end do
    !$acc update self(b)
    total = total + b(n)
  end do
  !$acc exit data copyout(a) delete(b)
  print '(f0.1)', total
end program update_loop_f
