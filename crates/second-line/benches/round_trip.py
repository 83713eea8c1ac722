"""One notified round trip: a write-open of /dev/null (notified, the supervisor reads the path and
answers) against a read-only open (not notified), 5000 each, in one process.

second-line-exec python3 round_trip.py            # the normal scheduler
chrt -f 10 second-line-exec python3 round_trip.py # real-time: the wake-up goes to another CPU
"""
import os, time
n=5000
t=time.perf_counter()
for i in range(n):
    os.close(os.open('/dev/null', os.O_RDWR))
d=(time.perf_counter()-t)/n*1e6
t=time.perf_counter()
for i in range(n):
    os.close(os.open('/dev/null', os.O_RDONLY))
r=(time.perf_counter()-t)/n*1e6
print(f"rdwr {d:.1f} us  rdonly {r:.1f} us  round trip {d-r:.1f} us")
