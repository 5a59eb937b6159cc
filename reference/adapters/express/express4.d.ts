// Types of the `express4` alias (express@4, installed to test the middleware on both majors): Express 5's types fit what the tests use.
declare module 'express4' {
  import express from 'express';
  export default express;
}
