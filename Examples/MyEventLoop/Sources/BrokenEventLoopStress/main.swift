// BrokenEventLoop's registrations through Stress alone: what `BrokenEventLoop
// stress` runs, in an executable that links no benchmark and no peer (CI
// builds it with ThreadSanitizer).
import EventLoopRegistrations
import StressKit

StressMain.run(
    registering: BrokenEventLoopRegistrations.all().map(StressScheduler.init) + BrokenEventLoopRegistrations.stressOnly())
