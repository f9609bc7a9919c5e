// MyEventLoop's registrations through Stress alone: what `MyEventLoop stress`
// runs, in an executable that links no benchmark and no peer (CI builds it
// with ThreadSanitizer).
import EventLoopRegistrations
import StressKit

StressMain.run(registering: MyEventLoopRegistrations.all().map(StressScheduler.init))
