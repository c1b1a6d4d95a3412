class Txns extends Compat { static void run() throws Exception { throw new Fail("todo"); } }
